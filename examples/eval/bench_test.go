package eval

import "testing"

// BenchmarkSSIM measures one comparison of two 800×600 screenshots.
func BenchmarkSSIM(b *testing.B) {
	a := pattern(800, 600, func(x, y int) float64 { return float64((x*7 + y*13) % 256) })
	c := pattern(800, 600, func(x, y int) float64 { return float64((x*7 + y*13 + 5) % 256) })
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compare(a, c, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTextbookSSIM is the direct two-pass form the tests check
// against, for comparison.
func BenchmarkTextbookSSIM(b *testing.B) {
	a := pattern(800, 600, func(x, y int) float64 { return float64((x*7 + y*13) % 256) })
	c := pattern(800, 600, func(x, y int) float64 { return float64((x*7 + y*13 + 5) % 256) })
	for b.Loop() {
		textbookSSIM(a, c)
	}
}
