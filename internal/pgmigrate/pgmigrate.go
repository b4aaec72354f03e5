// Package pgmigrate creates and migrates the PostgreSQL schema of one
// agentgraph component (the checkpointer, the store): a numbered list of
// migrations, applied in order in one transaction under an advisory lock,
// and the version reached recorded in the table agentgraph_schema. Running
// it again, or from several processes at once, is safe: the lock makes them
// take turns and a version already reached is not applied again.
package pgmigrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lockKey is the advisory lock every component's migration takes.
const lockKey = 0x61677261706831 // "agraph1"

// ErrTooNew is returned when the database was migrated by a newer build.
var ErrTooNew = errors.New("pgmigrate: the database schema is newer than this build")

// Timeout bounds a migration, the wait for the lock included.
const Timeout = 60 * time.Second

// Apply brings component's schema to len(migrations): migrations[i] takes
// it from version i to i+1. It returns the version it found.
func Apply(ctx context.Context, pool *pgxpool.Pool, component string, migrations []string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	found := 0
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(lockKey)); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS agentgraph_schema (
			component text PRIMARY KEY,
			version   integer NOT NULL,
			updated   timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create agentgraph_schema: %w", err)
		}
		err := tx.QueryRow(ctx, "SELECT version FROM agentgraph_schema WHERE component = $1", component).Scan(&found)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read version: %w", err)
		}
		if found > len(migrations) {
			return fmt.Errorf("%w: %s is at version %d, this build knows %d", ErrTooNew, component, found, len(migrations))
		}
		for v := found; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		if found < len(migrations) {
			_, err := tx.Exec(ctx, `INSERT INTO agentgraph_schema (component, version) VALUES ($1, $2)
				ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, updated = now()`, component, len(migrations))
			if err != nil {
				return fmt.Errorf("record version: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return found, fmt.Errorf("pgmigrate: %s: %w", component, err)
	}
	return found, nil
}
