package eval

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textbookSSIM is a direct, slow transcription of Wang et al. (2004), eq. 13
// with the Gaussian-weighted local statistics of section III-C: for every
// 11×11 window position the weighted mean, variance and covariance are
// computed in two passes from the 2-D weights w(i,j) = g(i)·g(j) (no
// separable filtering, no E[x²]−μ² shortcut), then SSIM values are averaged.
func textbookSSIM(a, b *Gray) float64 {
	const n = 11
	w := make([][]float64, n)
	sum := 0.0
	for i := range n {
		w[i] = make([]float64, n)
		for j := range n {
			di, dj := float64(i-5), float64(j-5)
			w[i][j] = math.Exp(-(di*di + dj*dj) / (2 * 1.5 * 1.5))
			sum += w[i][j]
		}
	}
	c1, c2 := math.Pow(0.01*255, 2), math.Pow(0.03*255, 2)
	total, count := 0.0, 0
	for y := 0; y+n <= a.H; y++ {
		for x := 0; x+n <= a.W; x++ {
			mx, my := 0.0, 0.0
			for j := range n {
				for i := range n {
					mx += w[j][i] / sum * a.At(x+i, y+j)
					my += w[j][i] / sum * b.At(x+i, y+j)
				}
			}
			vx, vy, cxy := 0.0, 0.0, 0.0
			for j := range n {
				for i := range n {
					dx, dy := a.At(x+i, y+j)-mx, b.At(x+i, y+j)-my
					vx += w[j][i] / sum * dx * dx
					vy += w[j][i] / sum * dy * dy
					cxy += w[j][i] / sum * dx * dy
				}
			}
			total += (2*mx*my + c1) * (2*cxy + c2) / ((mx*mx + my*my + c1) * (vx + vy + c2))
			count++
		}
	}
	return total / float64(count)
}

func pattern(w, h int, f func(x, y int) float64) *Gray {
	g := NewGray(w, h, 0)
	for y := range h {
		for x := range w {
			g.Pix[y*w+x] = f(x, y)
		}
	}
	return g
}

func TestSSIMReferenceValues(t *testing.T) {
	checker := pattern(32, 32, func(x, y int) float64 {
		if (x/4+y/4)%2 == 0 {
			return 40
		}
		return 210
	})
	shifted := pattern(32, 32, func(x, y int) float64 { return checker.At((x+2)%32, y) })
	ramp := pattern(32, 32, func(x, y int) float64 { return float64(x * 8) })
	noisy := pattern(32, 32, func(x, y int) float64 { return float64((x*37 + y*91) % 256) })
	// By hand: two constant images c and d have zero variances and
	// covariance, so SSIM = (2cd + C1) / (c² + d² + C1) for every window.
	// c=100, d=150: (30000 + 6.5025) / (32500 + 6.5025) = 0.923092…
	hand := (2*100*150 + SSIMC1) / (100*100 + 150*150 + SSIMC1)
	assert.InDelta(t, 0.923092, hand, 1e-6)

	cases := []struct {
		name string
		a, b *Gray
		want float64
	}{
		{"identical", checker, checker, 1},
		{"constant vs brighter constant (by hand)", NewGray(32, 32, 100), NewGray(32, 32, 150), hand},
		{"constant vs itself", NewGray(20, 20, 77), NewGray(20, 20, 77), 1},
		{"checker vs shifted checker", checker, shifted, textbookSSIM(checker, shifted)},
		{"checker vs ramp", checker, ramp, textbookSSIM(checker, ramp)},
		{"ramp vs noise", ramp, noisy, textbookSSIM(ramp, noisy)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SSIM(c.a, c.b)
			require.NoError(t, err)
			assert.InDelta(t, c.want, got, 0.01)
			assert.InDelta(t, c.want, got, 1e-9, "separable filter agrees with the two-pass textbook form")
		})
	}
	v, err := SSIM(checker, shifted)
	require.NoError(t, err)
	assert.Less(t, v, 0.5, "a shifted checkerboard is structurally different")
	_, err = SSIM(checker, NewGray(31, 32, 0))
	assert.ErrorIs(t, err, ErrSizeMismatch)
}

func TestCompareResizeCropMismatch(t *testing.T) {
	// a reference with a dark left half and a light right half
	ref := pattern(40, 20, func(x, y int) float64 {
		if x < 20 {
			return 30
		}
		return 220
	})
	// the same picture at twice the size (another device scale)
	big := ref.Resize(80, 40)
	s, m, err := Compare(ref, big, nil)
	require.NoError(t, err)
	assert.Greater(t, s, 0.97)
	assert.Less(t, m, 0.06)
	// a candidate whose right half went dark: the region of the left half
	// still matches, the whole image does not
	cand := NewGray(40, 20, 30)
	s, m, err = Compare(ref, cand, &Region{X: 0, Y: 0, Width: 18, Height: 20})
	require.NoError(t, err)
	assert.InDelta(t, 1, s, 1e-9)
	assert.Zero(t, m)
	s, m, err = Compare(ref, cand, nil)
	require.NoError(t, err)
	assert.Less(t, s, 0.8)
	assert.InDelta(t, 0.5, m, 1e-9)
	_, _, err = Compare(ref, cand, &Region{X: 100, Y: 0, Width: 5, Height: 5})
	assert.Error(t, err)
}

func TestDecodePNG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.RGBA{255, 255, 255, 255})
	img.Set(1, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	g, err := DecodePNG(buf.Bytes())
	require.NoError(t, err)
	assert.InDelta(t, 255, g.At(0, 0), 1e-9)
	assert.InDelta(t, 0.299*255, g.At(1, 0), 1e-9)
	_, err = DecodePNG([]byte("not a png"))
	assert.Error(t, err)
}
