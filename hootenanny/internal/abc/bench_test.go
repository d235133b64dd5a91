package abc

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(book)))
	for b.Loop() {
		Parse(book, Options{})
	}
}

func BenchmarkValidate(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(book)))
	for b.Loop() {
		Validate(book)
	}
}

func BenchmarkTranspose(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(book)))
	for b.Loop() {
		if _, err := Transpose(book, 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvents(b *testing.B) {
	bk, _ := Parse(book, Options{})
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range bk.Tunes {
			for _, v := range t.Voices {
				if _, err := t.Events(v.ID); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
