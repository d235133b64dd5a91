package synth

import (
	"encoding/binary"
)

// Record sizes of the pdta sub-chunks (SoundFont 2.04, section 7).
var recordSize = map[string]int{
	"phdr": 38, "pbag": 4, "pmod": 10, "pgen": 4,
	"inst": 22, "ibag": 4, "imod": 10, "igen": 4, "shdr": 46,
}

// Generator operators that index other tables.
const (
	genInstrument = 41
	genSampleID   = 53
)

// chunk is a sub-chunk of a LIST: its id and body.
type chunk struct {
	id   string
	body []byte
}

// check walks b's RIFF structure the way the synthesiser's reader does (RIFF sfbk holding the
// LIST chunks INFO, sdta and pdta, in that order, with nothing between them) and checks every
// size against the bytes that are there and every index against the table it points into.
func check(b []byte) error {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "sfbk" {
		return formatErr("it does not start with a RIFF sfbk header")
	}
	off := 12
	lists := map[string][]chunk{}
	for _, want := range []string{"INFO", "sdta", "pdta"} {
		if off+12 > len(b) {
			return formatErr("the %s list is missing", want)
		}
		if string(b[off:off+4]) != "LIST" {
			return formatErr("found the chunk %q where the LIST %s should be", b[off:off+4], want)
		}
		size := int64(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		if size < 4 || size > int64(len(b)-off-8) {
			return formatErr("the LIST %s claims %d bytes, but %d follow", want, size, len(b)-off-8)
		}
		if got := string(b[off+8 : off+12]); got != want {
			return formatErr("found the LIST %q where %s should be", got, want)
		}
		subs, err := subChunks(want, b[off+12:off+8+int(size)])
		if err != nil {
			return err
		}
		lists[want] = subs
		off += 8 + int(size)
	}
	var samples int64 = -1
	for _, c := range lists["sdta"] {
		switch c.id {
		case "smpl":
			samples = int64(len(c.body) / 2)
		case "sm24":
		default:
			return formatErr("the sdta list holds an unknown chunk %q", c.id)
		}
	}
	if samples < 0 {
		return formatErr("it has no sample data (smpl)")
	}
	return checkPdta(lists["pdta"], samples)
}

// subChunks splits a LIST's body into its sub-chunks, which must fill it exactly.
func subChunks(list string, b []byte) ([]chunk, error) {
	var out []chunk
	for off := 0; off < len(b); {
		if off+8 > len(b) {
			return nil, formatErr("the %s list ends inside a chunk header", list)
		}
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		if size > int64(len(b)-off-8) {
			return nil, formatErr("the %s chunk %q claims %d bytes, but %d follow", list, id, size, len(b)-off-8)
		}
		if size%2 != 0 {
			return nil, formatErr("the %s chunk %q has an odd size, %d", list, id, size)
		}
		out = append(out, chunk{id: id, body: b[off+8 : off+8+int(size)]})
		off += 8 + int(size)
	}
	return out, nil
}

func checkPdta(subs []chunk, samples int64) error {
	t := map[string][]byte{}
	for _, c := range subs {
		n, ok := recordSize[c.id]
		if !ok {
			return formatErr("the pdta list holds an unknown chunk %q", c.id)
		}
		if len(c.body)%n != 0 || len(c.body) < n {
			return formatErr("the %s chunk is %d bytes, not a whole number of %d-byte records ending with the terminal one", c.id, len(c.body), n)
		}
		t[c.id] = c.body
	}
	for id := range recordSize {
		if t[id] == nil && id != "pmod" && id != "imod" {
			return formatErr("the %s chunk is missing", id)
		}
	}
	count := func(id string) int { return len(t[id]) / recordSize[id] }
	u16 := func(b []byte, at int) int { return int(binary.LittleEndian.Uint16(b[at : at+2])) }
	// Each header's bag index, and each bag's generator index, must rise and stay inside the
	// table it points into; the terminal record closes the last range.
	if err := rising(t["phdr"], 38, 24, count("pbag"), "preset", "pbag"); err != nil {
		return err
	}
	if err := rising(t["inst"], 22, 20, count("ibag"), "instrument", "ibag"); err != nil {
		return err
	}
	if err := rising(t["pbag"], 4, 0, count("pgen"), "preset zone", "pgen"); err != nil {
		return err
	}
	if err := rising(t["ibag"], 4, 0, count("igen"), "instrument zone", "igen"); err != nil {
		return err
	}
	if t["pmod"] != nil {
		if err := rising(t["pbag"], 4, 2, count("pmod"), "preset zone", "pmod"); err != nil {
			return err
		}
	}
	if t["imod"] != nil {
		if err := rising(t["ibag"], 4, 2, count("imod"), "instrument zone", "imod"); err != nil {
			return err
		}
	}
	instruments, sampleHeaders := count("inst")-1, count("shdr")-1
	for i := 0; i+4 <= len(t["pgen"]); i += 4 {
		if u16(t["pgen"], i) == genInstrument && u16(t["pgen"], i+2) >= instruments {
			return formatErr("a preset zone names instrument %d of %d", u16(t["pgen"], i+2), instruments)
		}
	}
	for i := 0; i+4 <= len(t["igen"]); i += 4 {
		if u16(t["igen"], i) == genSampleID && u16(t["igen"], i+2) >= sampleHeaders {
			return formatErr("an instrument zone names sample %d of %d", u16(t["igen"], i+2), sampleHeaders)
		}
	}
	sh := t["shdr"]
	for i := range sampleHeaders {
		r := sh[i*46 : (i+1)*46]
		start := int64(binary.LittleEndian.Uint32(r[20:24]))
		end := int64(binary.LittleEndian.Uint32(r[24:28]))
		loopStart := int64(binary.LittleEndian.Uint32(r[28:32]))
		loopEnd := int64(binary.LittleEndian.Uint32(r[32:36]))
		rate := int64(binary.LittleEndian.Uint32(r[36:40]))
		if start > end || end > samples || loopStart > samples || loopEnd > samples || loopStart > loopEnd {
			return formatErr("sample %d (%s) runs from %d to %d, looping %d to %d, outside the %d sample points there are",
				i, cleanName(r[:20]), start, end, loopStart, loopEnd, samples)
		}
		if rate < 1 || rate > 768000 {
			return formatErr("sample %d (%s) has a sample rate of %d", i, cleanName(r[:20]), rate)
		}
	}
	return nil
}

// rising checks that the uint16 at field of each record of table (of size bytes) rises and
// stays within limit items of the table it indexes.
func rising(table []byte, size, field, limit int, what, into string) error {
	prev := 0
	for i := 0; i+size <= len(table); i += size {
		v := int(binary.LittleEndian.Uint16(table[i+field : i+field+2]))
		if v < prev {
			return formatErr("the %s records' %s indexes go backwards (%d after %d)", what, into, v, prev)
		}
		if v > limit-1 {
			return formatErr("a %s record points at %s record %d of %d", what, into, v, limit)
		}
		prev = v
	}
	return nil
}
