package checkpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// EnvelopeVersion is the record format version of the records this
// package writes. Version 2 (MaxEnvelopeVersion) adds one kind of record,
// the stub that stands for a large checkpoint record the bbolt back-end
// stores apart; stubs are written as version 2, so a build that reads
// only version 1 reports them as ErrUnknownVersion, and every other record
// stays version 1.
const EnvelopeVersion = 1

// MaxEnvelopeVersion is the newest record format version this build reads.
const MaxEnvelopeVersion = envelopeVersionExtern

const envelopeVersionExtern = 2

var envelopeMagic = [3]byte{'A', 'G', 'E'}

// ErrCorrupt is wrapped by every error about a stored record that does not
// decode: damaged bytes, a failed checksum, a missing delta base.
var ErrCorrupt = errors.New("checkpoint: corrupt record")

// ErrUnknownVersion is wrapped when a record was written in an envelope
// version this build does not know.
var ErrUnknownVersion = errors.New("checkpoint: unknown record version")

// ErrFormat is wrapped when a record's serializer is not the one the
// checkpointer is configured with.
var ErrFormat = errors.New("checkpoint: record serializer mismatch")

// DecodeError reports a stored record that could not be read back. It
// names the thread, namespace and checkpoint, and wraps ErrCorrupt,
// ErrUnknownVersion or ErrFormat.
type DecodeError struct {
	ThreadID     string
	NS           string
	CheckpointID string
	Err          error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("checkpoint: thread %q ns %q checkpoint %q: cannot decode stored record: %v",
		e.ThreadID, e.NS, e.CheckpointID, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Envelope is the versioned frame around every record the bbolt back-end
// stores. Its binary layout is:
//
//	"AGE" | version byte | kind | state type | serializer | header | blob count | blobs... | CRC-32C
//
// where strings, the header and blobs are uvarint-length-prefixed (a blob's
// prefix is length+1, 0 meaning a nil blob) and the checksum, big-endian,
// covers every byte before it.
type Envelope struct {
	Version    byte
	Kind       string // what the record is: "checkpoint", "writes"
	StateType  string // the Go type of the graph state, for error messages
	Serializer string // the Format of the graph.Serializer that encoded Header
	Header     []byte
	Blobs      [][]byte
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// EncodeEnvelope returns the binary form of e. A zero Version is written
// as EnvelopeVersion.
func EncodeEnvelope(e Envelope) []byte {
	if e.Version == 0 {
		e.Version = EnvelopeVersion
	}
	n := 4 + 4*binary.MaxVarintLen64 + len(e.Kind) + len(e.StateType) + len(e.Serializer) + len(e.Header) + 4
	for _, b := range e.Blobs {
		n += binary.MaxVarintLen64 + len(b)
	}
	out := make([]byte, 0, n)
	out = append(out, envelopeMagic[:]...)
	out = append(out, e.Version)
	for _, s := range []string{e.Kind, e.StateType, e.Serializer} {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.Header)))
	out = append(out, e.Header...)
	out = binary.AppendUvarint(out, uint64(len(e.Blobs)))
	for _, b := range e.Blobs {
		if b == nil {
			out = binary.AppendUvarint(out, 0)
			continue
		}
		out = binary.AppendUvarint(out, uint64(len(b))+1)
		out = append(out, b...)
	}
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
}

// DecodeEnvelope parses the binary form of an envelope. It never panics:
// damaged input yields an error wrapping ErrCorrupt, an envelope of a
// newer format an error wrapping ErrUnknownVersion. The returned header and
// blobs alias data.
func DecodeEnvelope(data []byte) (Envelope, error) {
	var e Envelope
	if len(data) < len(envelopeMagic)+1+4 {
		return e, fmt.Errorf("%w: record of %d bytes is too short", ErrCorrupt, len(data))
	}
	if [3]byte(data[:3]) != envelopeMagic {
		return e, fmt.Errorf("%w: bad magic %q", ErrCorrupt, data[:3])
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	known := data[3] >= EnvelopeVersion && data[3] <= MaxEnvelopeVersion
	if got := crc32.Checksum(body, crcTable); got != sum {
		if !known {
			return e, fmt.Errorf("%w: version %d (this build reads %d to %d)", ErrUnknownVersion, data[3], EnvelopeVersion, MaxEnvelopeVersion)
		}
		return e, fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x)", ErrCorrupt, sum, got)
	}
	e.Version = data[3]
	if !known {
		return e, fmt.Errorf("%w: version %d (this build reads %d to %d)", ErrUnknownVersion, e.Version, EnvelopeVersion, MaxEnvelopeVersion)
	}
	r := reader{b: body[4:]}
	e.Kind = string(r.bytes("kind"))
	e.StateType = string(r.bytes("state type"))
	e.Serializer = string(r.bytes("serializer"))
	e.Header = r.bytes("header")
	count := r.uvarint("blob count")
	if r.err == nil && count > uint64(len(r.b)) {
		r.err = fmt.Errorf("blob count %d exceeds the %d bytes left", count, len(r.b))
	}
	if r.err == nil && count > 0 {
		e.Blobs = make([][]byte, 0, count)
		for i := uint64(0); i < count && r.err == nil; i++ {
			n := r.uvarint("blob length")
			switch {
			case r.err != nil:
			case n == 0:
				e.Blobs = append(e.Blobs, nil)
			default:
				e.Blobs = append(e.Blobs, r.take(n-1, "blob"))
			}
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d trailing bytes", len(r.b))
	}
	if r.err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrCorrupt, r.err)
	}
	return e, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("bad %s", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%s of %d bytes exceeds the %d bytes left", what, n, len(r.b))
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) bytes(what string) []byte {
	return r.take(r.uvarint(what+" length"), what)
}
