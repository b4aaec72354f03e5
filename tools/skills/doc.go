// Package skills loads skills (a folder per skill with a SKILL.md and a
// scripts/ folder) and gives agents tools to read and run them.
//
// A skill folder:
//
//	link-check/
//	  SKILL.md          front matter (name, description, scripts) + documentation
//	  scripts/check.sh  any executable, or .sh/.py/.js run by bash/python3/node
//
// SKILL.md front matter keys: name (default: the folder name; 1-64 of
// [A-Za-z0-9_.-]), description (required), scripts (optional declarations:
// per script file, description, variadic, and args: a list of {name,
// description, required, pattern, enum}); license, allowed-tools and metadata
// are accepted and ignored. Unknown keys are errors.
//
// Running a script (Library.Run, or the skill_run tool) never involves a
// shell: the file is executed directly with the arguments as argv. Arguments
// are validated first: against the declared pattern (an anchored RE2) or
// enum, or, for undeclared scripts and arguments without a pattern, SafeArg
// (no leading "-", no spaces or shell metacharacters). Runs have a timeout
// (Options.Timeout, default 60 s) that kills the script's whole process
// group, and their combined stdout/stderr is capped (Options.MaxOutput,
// default 64 KiB) with a truncation note. Scripts get a clean environment:
// PATH, HOME, LANG, TMPDIR (or Options.Env) plus SKILL_NAME and SKILL_DIR,
// and run in the skill's folder.
//
// Library.Tools returns skill_list, skill_show, skill_scripts and skill_run
// as tools.Tool values for a tools.Registry.
package skills
