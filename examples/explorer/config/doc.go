// Package config loads the settings of the explorer program
// (examples/explorer) from four layers, highest first:
//
//  1. command-line flags (--budget 60);
//  2. one AGENTGRAPH_<KEY> environment variable per setting
//     (AGENTGRAPH_BUDGET=60, AGENTGRAPH_TARGET=…); an empty variable counts
//     as unset;
//  3. the config file: explorer.yaml in the working directory, or --config
//     FILE;
//  4. the defaults (Defaults).
//
// The file is a YAML mapping whose keys are the flag names in snake_case
// (flag --turn-steps, key turn_steps; -v is verbose). An unknown or repeated
// key, a list where a value belongs and a value of the wrong type are errors
// naming the file and line. "key:" with no value keeps the default.
//
// Values in the file may use ${VAR} and ${VAR:-default} (default when VAR is
// unset or empty); $$ is a literal $. An unset ${VAR} without default, an
// unterminated ${ and a bad name are errors naming the variable and line.
// Variables come from the environment, then from a .env file (in the working
// directory, or --env-file), read with github.com/joho/godotenv; .env never
// overrides a variable the environment sets, and also supplies AGENTGRAPH_*
// settings and provider keys (Loaded.Lookup). Nothing is written to the
// process environment.
//
// One key is a list: users (UsersKey), the accounts to explore as, each a
// mapping of name, email, password or password_env, and storage_state;
// on the command line --account and --storage-state (repeatable; Options
// Accounts and StorageStates; see ParseAccount and ParseStorageState).
// --account replaces the file's list; a password is refused there (it
// would show in the process list). The users are checked with
// explore.ValidateUsers, and Print masks their passwords.
//
// Secret settings (the sign-in password) are masked by Loaded.Print, which
// prints the effective configuration with the source of each value.
// Template returns the commented explorer.yaml that `explorer init` writes;
// it loads back to the defaults.
package config
