package checkpoint

// WALApplyHook makes a background apply of the write-ahead log call f at
// its stages ("tx": inside the bbolt transaction, before its commit;
// "committed": after it), for the crash tests.
func WALApplyHook(f func(stage string)) Option { return func(c *config) { c.walApplyHook = f } }
