package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/checkpoint"
	"github.com/agentgraph/agentgraph/checkpoint/checkpointtest"
)

// TestDamagedRows: rows changed behind the checkpointer's back give a
// *checkpoint.DecodeError wrapping ErrCorrupt that names the checkpoint
// read, never a panic or a zero state; older checkpoints stay readable and
// checkpoint.NewestReadable walks back to them.
func TestDamagedRows(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		damage  string // SQL; $1 is the id of the row damaged
		damaged int
		read    int
		newest  int // the newest checkpoint that still loads
		skipped int // the newer ones NewestReadable skips
	}{
		{"garbled header", `UPDATE agentgraph_cp_checkpoints SET header = '\x7b6e6f'::bytea WHERE id = $1`, 5, 5, 7, 0},
		{"missing base", `DELETE FROM agentgraph_cp_checkpoints WHERE id = $1`, 5, 6, 4, 2},
		{"keep past the base's value", `UPDATE agentgraph_cp_channels SET keep = 100000 WHERE id = $1 AND keep > 0`, 6, 6, 5, 2},
		{"delta loop", `UPDATE agentgraph_cp_checkpoints SET base = id WHERE id = $1`, 5, 6, 4, 3},
		{"depth too small", `UPDATE agentgraph_cp_checkpoints SET depth = 1 WHERE id = $1`, 6, 6, 5, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pool := newPool(t)
			cp := newCP(t, pool)
			require.NoError(t, cp.Check(ctx), "an empty database")
			log := `["a long first message that every later value of the list starts with"`
			for i := range 8 {
				c := checkpointtest.Sample("t", "", i, i > 0)
				log += fmt.Sprintf(`,"m%d"`, i)
				c.Values["log"] = []byte(log + "]")
				require.NoError(t, cp.Put(ctx, c))
			}
			require.NoError(t, cp.Check(ctx), "a sound database")
			tag, err := pool.Exec(ctx, tc.damage, []byte(checkpointtest.ID(tc.damaged)))
			require.NoError(t, err)
			require.EqualValues(t, 1, tag.RowsAffected())
			fresh := newCP(t, pool) // no cached state
			got, ws, err := fresh.Get(ctx, "t", "", checkpointtest.ID(tc.read))
			assert.Nil(t, got)
			assert.Nil(t, ws)
			var de *checkpoint.DecodeError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, checkpointtest.ID(tc.read), de.CheckpointID)
			assert.Equal(t, "t", de.ThreadID)
			require.ErrorIs(t, err, checkpoint.ErrCorrupt)

			err = fresh.Check(ctx)
			require.ErrorIs(t, err, checkpoint.ErrCorrupt, "Check reports the damage")
			require.ErrorAs(t, err, &de)

			got, _, err = fresh.Get(ctx, "t", "", checkpointtest.ID(3))
			require.NoError(t, err, "an older checkpoint still loads")
			assert.Equal(t, checkpointtest.ID(3), got.ID)
			good, skipped, err := checkpoint.NewestReadable(ctx, fresh, "t", "")
			require.NoError(t, err)
			assert.Equal(t, checkpointtest.ID(tc.newest), good.ID)
			assert.Len(t, skipped, tc.skipped)
		})
	}
}
