package checkpoint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleEnvelopes() []Envelope {
	return []Envelope{
		{},
		{Kind: kindCheckpoint, StateType: "main.State", Serializer: "json", Header: []byte(`{"id":"a"}`)},
		{Kind: kindWrites, Serializer: "json", Header: []byte(`[]`), Blobs: [][]byte{nil, {}, []byte("x"), make([]byte, 300)}},
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	for _, e := range sampleEnvelopes() {
		raw := EncodeEnvelope(e)
		got, err := DecodeEnvelope(raw)
		require.NoError(t, err)
		assert.Equal(t, byte(EnvelopeVersion), got.Version)
		assert.Equal(t, e.Kind, got.Kind)
		assert.Equal(t, e.StateType, got.StateType)
		assert.Equal(t, e.Serializer, got.Serializer)
		assert.Equal(t, string(e.Header), string(got.Header))
		require.Len(t, got.Blobs, len(e.Blobs))
		for i := range e.Blobs {
			assert.Equal(t, e.Blobs[i] == nil, got.Blobs[i] == nil, "blob %d nil-ness", i)
			assert.Equal(t, string(e.Blobs[i]), string(got.Blobs[i]))
		}
	}
}

func TestDecodeEnvelopeErrors(t *testing.T) {
	good := EncodeEnvelope(sampleEnvelopes()[2])
	future := append([]byte(nil), good...)
	future[3] = 7
	cases := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"nil", nil, ErrCorrupt, "too short"},
		{"short", []byte("AGE"), ErrCorrupt, "too short"},
		{"bad magic", append([]byte("XYZ"), good[3:]...), ErrCorrupt, "magic"},
		{"checksum", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1), ErrCorrupt, "checksum"},
		{"truncated", good[:len(good)-3], ErrCorrupt, ""},
		{"future version", future, ErrUnknownVersion, "version 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeEnvelope(tc.in)
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// FuzzDecodeEnvelope: no input makes the decoder (or the record decoder
// on top of it) panic, and whatever decodes re-encodes to an equal
// envelope. `go test` runs the seeds; CI runs it bounded with
//
//	go test -run '^$' -fuzz FuzzDecodeEnvelope -fuzztime 30s ./checkpoint/
func FuzzDecodeEnvelope(f *testing.F) {
	for _, e := range sampleEnvelopes() {
		raw := EncodeEnvelope(e)
		f.Add(raw)
		f.Add(raw[:len(raw)/2])
	}
	f.Add([]byte{})
	f.Add([]byte("AGE\x02garbage"))
	f.Add(EncodeEnvelope(Envelope{Kind: kindCheckpoint, Serializer: "json", Header: []byte(`{"id":"x","ch":[{"n":"a","b":5,"keep":3}]}`)}))
	f.Add(EncodeEnvelope(Envelope{Kind: kindCheckpoint, Serializer: "json", Header: []byte(`{"id":"x","writes_of":"p","ch":[{"n":"a","b":0,"w":1,"ws":4}]}`), Blobs: [][]byte{[]byte("ab")}}))
	b := &Bolt{cfg: newConfig(nil)}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeEnvelope(data)
		if err == nil {
			again, err := DecodeEnvelope(EncodeEnvelope(e))
			require.NoError(t, err)
			assert.Equal(t, e.Kind, again.Kind)
			assert.Equal(t, e.StateType, again.StateType)
			assert.Equal(t, e.Serializer, again.Serializer)
			assert.Equal(t, string(e.Header), string(again.Header))
			require.Len(t, again.Blobs, len(e.Blobs))
		}
		if d, err := b.decodeRecord("x", data); err == nil {
			_, _ = b.apply(nil, d, nil) // must not panic on any header
		}
	})
}
