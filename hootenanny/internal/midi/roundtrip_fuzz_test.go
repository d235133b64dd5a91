package midi

import (
	"reflect"
	"testing"
)

// fileFromBytes builds a valid File from arbitrary bytes.
func fileFromBytes(b []byte) File {
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	f := File{Format: int(next() % 3), TicksPerQuarter: 1 + int(next())<<7 | int(next()&0x7F)}
	ntracks := 1
	if f.Format != 0 {
		ntracks = int(next()%4) + 1
	}
	for range ntracks {
		var t Track
		var tick int64
		for len(b) > 0 && len(t.Events) < 200 {
			op := next()
			switch op % 4 {
			case 1:
				tick += int64(next())
			case 2:
				tick += int64(next()) << 14
			case 3:
				tick += int64(next()&0x7F) << 21 // stays within MaxVLQ
			}
			ch := next() & 0x0F
			d1, d2 := next()&0x7F, next()&0x7F
			var e Event
			switch (op >> 2) % 12 {
			case 0:
				e = NoteOn(tick, ch, d1, d2)
			case 1:
				e = NoteOff(tick, ch, d1, d2)
			case 2:
				e = Event{Tick: tick, Kind: KindPolyPressure, Channel: ch, Data1: d1, Data2: d2}
			case 3:
				e = ControlChange(tick, ch, d1, d2)
			case 4:
				e = ProgramChange(tick, ch, d1)
			case 5:
				e = Event{Tick: tick, Kind: KindChannelPressure, Channel: ch, Data1: d1}
			case 6:
				e = PitchBend(tick, ch, int16(int(d1)|int(d2)<<7)-8192)
			case 7:
				e = Tempo(tick, uint32(d1)<<16|uint32(d2)<<8|uint32(next()))
			case 8:
				e = TimeSignature(tick, d1, 1<<(d2%6), 24, 8)
			case 9:
				e = KeySignature(tick, int8(d1%15)-7, d2&1 == 1)
			case 10:
				n := int(next() % 40)
				data := make([]byte, 0, n)
				for range n {
					data = append(data, next())
				}
				if len(data) == 0 {
					data = nil
				}
				e = TextEvent(tick, 1+d1%0x0F, string(data))
				e.Data = data
			case 11:
				n := int(next() % 20)
				var data []byte
				for range n {
					data = append(data, next())
				}
				st := byte(0xF0)
				if d1&1 == 1 {
					st = 0xF7
				}
				e = Event{Tick: tick, Kind: KindSysEx, SysExStatus: st, Data: data}
			}
			t.Events = append(t.Events, e)
		}
		f.Tracks = append(f.Tracks, t)
	}
	return f
}

// FuzzRoundTrip checks that every valid File survives Encode and Decode,
// with and without running status.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 3, 0x60, 2, 0, 0, 60, 100, 5, 0, 60, 0, 28, 1, 2, 3, 4, 40, 0, 10, 'h', 'i', 0})
	f.Add([]byte{0, 0, 0x60, 44, 0, 1, 2, 3, 46, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, in []byte) {
		file := fileFromBytes(in)
		want := withDeltas(file)
		for _, rs := range []bool{false, true} {
			data, err := EncodeWith(file, EncodeOptions{RunningStatus: rs})
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			got, err := Decode(data)
			if err != nil {
				t.Fatalf("decode (running=%v): %v", rs, err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Fatalf("running=%v: round trip differs\n got %+v\nwant %+v", rs, *got, want)
			}
		}
	})
}
