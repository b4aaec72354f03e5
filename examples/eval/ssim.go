package eval

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
)

// Gray is a greyscale image with float64 levels in [0, 255], row-major.
type Gray struct {
	W, H int
	Pix  []float64
}

// At is the level at (x, y).
func (g *Gray) At(x, y int) float64 { return g.Pix[y*g.W+x] }

// NewGray makes a w×h image filled with level.
func NewGray(w, h int, level float64) *Gray {
	g := &Gray{W: w, H: h, Pix: make([]float64, w*h)}
	for i := range g.Pix {
		g.Pix[i] = level
	}
	return g
}

// ToGray converts any image to luma (ITU-R BT.601: 0.299 R + 0.587 G +
// 0.114 B), the greyscale SSIM is usually computed on.
func ToGray(img image.Image) *Gray {
	b := img.Bounds()
	g := &Gray{W: b.Dx(), H: b.Dy(), Pix: make([]float64, b.Dx()*b.Dy())}
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			r, gr, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			g.Pix[y*g.W+x] = (0.299*float64(r) + 0.587*float64(gr) + 0.114*float64(bl)) / 257
		}
	}
	return g
}

// DecodePNG decodes PNG bytes to greyscale.
func DecodePNG(data []byte) (*Gray, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode png: %w", err)
	}
	return ToGray(img), nil
}

// Resize scales g to w×h with bilinear interpolation (pixel centres
// aligned).
func (g *Gray) Resize(w, h int) *Gray {
	if w == g.W && h == g.H {
		return g
	}
	out := &Gray{W: w, H: h, Pix: make([]float64, w*h)}
	sx, sy := float64(g.W)/float64(w), float64(g.H)/float64(h)
	for y := 0; y < h; y++ {
		fy := math.Max(0, (float64(y)+0.5)*sy-0.5)
		y0 := min(int(fy), g.H-1)
		y1 := min(y0+1, g.H-1)
		ty := fy - float64(y0)
		for x := 0; x < w; x++ {
			fx := math.Max(0, (float64(x)+0.5)*sx-0.5)
			x0 := min(int(fx), g.W-1)
			x1 := min(x0+1, g.W-1)
			tx := fx - float64(x0)
			top := g.At(x0, y0)*(1-tx) + g.At(x1, y0)*tx
			bot := g.At(x0, y1)*(1-tx) + g.At(x1, y1)*tx
			out.Pix[y*w+x] = top*(1-ty) + bot*ty
		}
	}
	return out
}

// Crop returns region r of g, clipped to g's bounds; an empty result is an
// error.
func (g *Gray) Crop(r Region) (*Gray, error) {
	x0, y0 := max(r.X, 0), max(r.Y, 0)
	x1, y1 := min(r.X+r.Width, g.W), min(r.Y+r.Height, g.H)
	if x1 <= x0 || y1 <= y0 {
		return nil, fmt.Errorf("region %+v lies outside the %d×%d image", r, g.W, g.H)
	}
	out := &Gray{W: x1 - x0, H: y1 - y0, Pix: make([]float64, (x1-x0)*(y1-y0))}
	for y := y0; y < y1; y++ {
		copy(out.Pix[(y-y0)*out.W:(y-y0+1)*out.W], g.Pix[y*g.W+x0:y*g.W+x1])
	}
	return out, nil
}

// SSIM constants (Wang, Bovik, Sheikh, Simoncelli 2004) for 8-bit levels.
const (
	SSIMWindow = 11  // Gaussian window size
	SSIMSigma  = 1.5 // its standard deviation
	SSIMC1     = (0.01 * 255) * (0.01 * 255)
	SSIMC2     = (0.03 * 255) * (0.03 * 255)
)

// ErrSizeMismatch is returned by SSIM for images of different sizes.
var ErrSizeMismatch = errors.New("images differ in size")

// gaussian is the normalised 1-D kernel; the 2-D window is its outer
// product.
func gaussian(n int, sigma float64) []float64 {
	k := make([]float64, n)
	c := float64(n-1) / 2
	sum := 0.0
	for i := range k {
		d := float64(i) - c
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// SSIM is the mean structural similarity of two equally sized greyscale
// images: 11×11 Gaussian windows (σ = 1.5) at every position where the
// window fits (MATLAB's filter2 'valid', as in Wang's reference code), with
// C1 = (0.01·255)² and C2 = (0.03·255)². Images smaller than the window use
// one window the size of the image. Identical images give 1.
func SSIM(a, b *Gray) (float64, error) {
	if a.W != b.W || a.H != b.H {
		return 0, fmt.Errorf("ssim: %w: %d×%d vs %d×%d", ErrSizeMismatch, a.W, a.H, b.W, b.H)
	}
	if a.W == 0 || a.H == 0 {
		return 0, errors.New("ssim: empty image")
	}
	wx, wy := min(SSIMWindow, a.W), min(SSIMWindow, a.H)
	kx, ky := gaussian(wx, SSIMSigma), gaussian(wy, SSIMSigma)
	if wx < SSIMWindow || wy < SSIMWindow { // tiny image: one uniform window
		kx, ky = uniform(wx), uniform(wy)
	}
	n := a.W * a.H
	ab, aa, bb := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		ab[i] = a.Pix[i] * b.Pix[i]
		aa[i] = a.Pix[i] * a.Pix[i]
		bb[i] = b.Pix[i] * b.Pix[i]
	}
	mu1 := filterValid(a.Pix, a.W, a.H, kx, ky)
	mu2 := filterValid(b.Pix, a.W, a.H, kx, ky)
	s11 := filterValid(aa, a.W, a.H, kx, ky)
	s22 := filterValid(bb, a.W, a.H, kx, ky)
	s12 := filterValid(ab, a.W, a.H, kx, ky)
	sum := 0.0
	for i := range mu1 {
		m1, m2 := mu1[i], mu2[i]
		v1, v2, cv := s11[i]-m1*m1, s22[i]-m2*m2, s12[i]-m1*m2
		sum += ((2*m1*m2 + SSIMC1) * (2*cv + SSIMC2)) / ((m1*m1 + m2*m2 + SSIMC1) * (v1 + v2 + SSIMC2))
	}
	return sum / float64(len(mu1)), nil
}

func uniform(n int) []float64 {
	k := make([]float64, n)
	for i := range k {
		k[i] = 1 / float64(n)
	}
	return k
}

// filterValid correlates the w×h image p with the separable kernel kx⊗ky at
// every position where it fits.
func filterValid(p []float64, w, h int, kx, ky []float64) []float64 {
	ow := w - len(kx) + 1
	oh := h - len(ky) + 1
	tmp := make([]float64, ow*h)
	for y := 0; y < h; y++ {
		row := p[y*w : (y+1)*w]
		for x := 0; x < ow; x++ {
			s := 0.0
			for i, k := range kx {
				s += k * row[x+i]
			}
			tmp[y*ow+x] = s
		}
	}
	out := make([]float64, ow*oh)
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			s := 0.0
			for j, k := range ky {
				s += k * tmp[(y+j)*ow+x]
			}
			out[y*ow+x] = s
		}
	}
	return out
}

// PixelTolerance is how many grey levels two pixels may differ by and still
// match in MismatchRatio.
const PixelTolerance = 16

// MismatchRatio is the share of pixels whose levels differ by more than tol.
func MismatchRatio(a, b *Gray, tol float64) (float64, error) {
	if a.W != b.W || a.H != b.H {
		return 0, fmt.Errorf("mismatch: %w: %d×%d vs %d×%d", ErrSizeMismatch, a.W, a.H, b.W, b.H)
	}
	if len(a.Pix) == 0 {
		return 0, errors.New("mismatch: empty image")
	}
	bad := 0
	for i := range a.Pix {
		if math.Abs(a.Pix[i]-b.Pix[i]) > tol {
			bad++
		}
	}
	return float64(bad) / float64(len(a.Pix)), nil
}

// Compare is the visual diff of a candidate screenshot against a
// reference: the candidate is resized to the reference's size when they
// differ (another viewport or device scale), both are cropped to region
// (nil: whole image) and compared.
func Compare(ref, cand *Gray, region *Region) (ssim, mismatch float64, err error) {
	cand = cand.Resize(ref.W, ref.H)
	if region != nil {
		if ref, err = ref.Crop(*region); err != nil {
			return 0, 0, err
		}
		if cand, err = cand.Crop(*region); err != nil {
			return 0, 0, err
		}
	}
	if ssim, err = SSIM(ref, cand); err != nil {
		return 0, 0, err
	}
	mismatch, err = MismatchRatio(ref, cand, PixelTolerance)
	return ssim, mismatch, err
}
