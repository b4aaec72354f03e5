package checkpoint

import (
	"encoding/binary"
	"fmt"
)

// External records.
//
// bbolt keeps a key's value inside its leaf page (a value larger than a
// page makes the leaf span several), and a commit that changes any key of
// a leaf writes the whole leaf again. A thread's first checkpoint (its
// input, maybe a long conversation) or a periodic snapshot is a large
// record followed by the small delta records of the next steps: they
// would share its leaf, and each of their commits would rewrite it, until
// bbolt split the leaf. So a checkpoint record of externMin bytes or more
// is stored in a bucket of its own (bucket "x" of the namespace, a
// sub-bucket named by the checkpoint id, key "r"), where no other write
// reaches it, and the checkpoints bucket holds a stub in its place: an
// envelope of version envelopeVersionExtern and kind kindExtern whose
// header is the record's length (uvarint) and CRC-32C (4 bytes). Builds
// that read only version 1 report such a stub as ErrUnknownVersion;
// records written before it are read as they are.

// externMin is the size from which a checkpoint record is stored apart.
const externMin = 32 << 10

const kindExtern = "external"

var (
	bucketExtern = []byte("x")
	externKey    = []byte("r")
)

// externStub returns the stub that stands for rec in the checkpoints
// bucket.
func externStub(rec []byte) []byte {
	h := binary.AppendUvarint(nil, uint64(len(rec)))
	h = binary.BigEndian.AppendUint32(h, recordSum(rec))
	return EncodeEnvelope(Envelope{Version: envelopeVersionExtern, Kind: kindExtern, Header: h})
}

// isStub reports whether raw, a value of the checkpoints bucket, is
// (meant to be) a stub: its version byte says so.
func isStub(raw []byte) bool { return len(raw) > 3 && raw[3] == envelopeVersionExtern }

// record returns the stored record of checkpoint id (following a stub),
// or nil when there is none. A stub that does not lead to its record is
// an error wrapping ErrCorrupt.
func (n *nsBuckets) record(id string) ([]byte, error) {
	raw := n.cps.Get([]byte(id))
	if raw == nil || !isStub(raw) {
		return raw, nil
	}
	env, err := DecodeEnvelope(raw)
	if err != nil {
		return nil, err
	}
	if env.Kind != kindExtern {
		return nil, fmt.Errorf("%w: record kind %q in version %d", ErrCorrupt, env.Kind, env.Version)
	}
	size, k := binary.Uvarint(env.Header)
	if k <= 0 || len(env.Header) != k+4 {
		return nil, fmt.Errorf("%w: external record stub: bad header", ErrCorrupt)
	}
	sum := binary.BigEndian.Uint32(env.Header[k:])
	var body []byte
	if n.ext != nil {
		if bk := n.ext.Bucket([]byte(id)); bk != nil {
			body = bk.Get(externKey)
		}
	}
	switch {
	case body == nil:
		return nil, fmt.Errorf("%w: the external record of checkpoint %q is missing", ErrCorrupt, id)
	case uint64(len(body)) != size || recordSum(body) != sum:
		return nil, fmt.Errorf("%w: the external record of checkpoint %q is not the one its stub names (%d bytes, sum %08x; want %d, %08x)",
			ErrCorrupt, id, len(body), recordSum(body), size, sum)
	}
	return body, nil
}

// putRecord stores rec as the record of checkpoint id, apart when it is
// large (replacing whatever id had).
func (n *nsBuckets) putRecord(id string, rec []byte) error {
	key := []byte(id)
	if len(rec) < externMin {
		if err := n.dropExtern(key); err != nil {
			return err
		}
		return n.cps.Put(key, rec)
	}
	if n.ext == nil {
		x, err := n.nb.CreateBucketIfNotExists(bucketExtern)
		if err != nil {
			return err
		}
		n.ext = x
	}
	bk, err := n.ext.CreateBucketIfNotExists(key)
	if err != nil {
		return err
	}
	if err := bk.Put(externKey, rec); err != nil {
		return err
	}
	return n.cps.Put(key, externStub(rec))
}

// deleteRecord deletes the record of checkpoint id.
func (n *nsBuckets) deleteRecord(key []byte) error {
	if err := n.dropExtern(key); err != nil {
		return err
	}
	return n.cps.Delete(key)
}

func (n *nsBuckets) dropExtern(key []byte) error {
	if n.ext == nil || n.ext.Bucket(key) == nil {
		return nil
	}
	return n.ext.DeleteBucket(key)
}

// checkExtern lists the external records that no stub names.
func (n *nsBuckets) checkExtern() []error {
	if n.ext == nil {
		return nil
	}
	var errs []error
	_ = n.ext.ForEach(func(k, v []byte) error {
		raw := n.cps.Get(k)
		if v != nil || raw == nil || !isStub(raw) {
			errs = append(errs, &DecodeError{ThreadID: n.threadID, NS: n.ns, CheckpointID: string(k),
				Err: fmt.Errorf("%w: an external record that no checkpoint names", ErrCorrupt)})
		}
		return nil
	})
	return errs
}
