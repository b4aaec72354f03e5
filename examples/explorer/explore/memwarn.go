package explore

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/agentgraph/agentgraph/memory"
)

// warnCorrupt handles an error of a memory read. Damaged records
// (*memory.CorruptRecordsError: the read still returned every readable
// record) are said on w (the progress output, when there is one) and in
// the log, and moved to memory's quarantine with their bytes kept; nil is
// then returned so the run goes on with what memory could read. Any other
// error is returned as it is.
func warnCorrupt(ctx context.Context, log *slog.Logger, w io.Writer, qa *memory.QA, err error) error {
	if err == nil || !memory.IsCorruptOnly(err) {
		return err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	moved, qerr := qa.Quarantine(ctx)
	switch {
	case qerr != nil:
		log.Warn("memory: damaged records skipped; quarantine failed", "err", err, "quarantine", qerr)
		if w != nil {
			fmt.Fprintf(w, "\nwarning: memory: damaged records skipped (%v); moving them to the quarantine failed: %v\n", err, qerr)
		}
	default:
		log.Warn("memory: damaged records moved to the quarantine", "err", err, "records", len(moved))
		if w != nil {
			fmt.Fprintf(w, "\nwarning: memory: %d damaged record(s) skipped and moved to the quarantine (%v)\n", len(moved), err)
		}
	}
	return nil
}
