// Package discover finds the pages of an app its links may not reach,
// before a mission's first step: Entries reads the sitemaps, robots.txt
// and a few conventional paths of the target.
//
// Before its first step a mission looks for pages the app's links may not
// reach (entries.go): the URLs of its sitemaps (those robots.txt names,
// else /sitemap.xml), the literal paths of robots.txt's rules, the
// conventional paths of EntryPaths (sign-in and sign-up pages, home,
// dashboard, account, search, help…) and Config.EntryPaths. A candidate
// counts when, after redirects within the origin, it answers 2xx with HTML
// unlike the start page's, unlike what a path that cannot exist gets (an
// app that answers every path with one page, or sends unknown paths home,
// adds nothing) and unlike an earlier candidate's (pages behind one
// sign-in redirect add that page once). The requests go straight to the
// target (not through the collector, so they are never findings), 4 at a
// time, each bounded by 4s and all by 15s. The pages found are visited
// after every linked page, so they cost a mission nothing while its links
// last, and they keep it going when the start page is an error page with
// nothing on it. Coverage.Entries lists them. Config.NoDiscovery (the
// explorer's --no-discovery) turns this off.
package discover
