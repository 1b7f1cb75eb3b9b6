/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteGrowthPlot draws a three-size curve and checks the file is a PNG of the expected size with the
// full-render series' red on it; fewer than two sizes is an error.
func TestWriteGrowthPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "growth.png")
	samples := []GrowthSample{
		{Sites: 100, FullRender: 0.7, OneSiteSync: 0.08, PushToRendered: 0.17, KustomizeScaled: 6, PeakRSS: 110, Pack: 0.05},
		{Sites: 1000, FullRender: 7, OneSiteSync: 0.2, PushToRendered: 0.3, KustomizeScaled: 60, PeakRSS: 150, Pack: 0.5},
		{Sites: 10000, FullRender: 70, OneSiteSync: 1, PushToRendered: 1.2, KustomizeScaled: 600, PeakRSS: 400, Pack: 5},
	}
	if err := WriteGrowthPlot(path, samples); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("growth.png is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 560 {
		t.Fatalf("growth.png is %dx%d, want 1280x560 (960x420 points at 96 dpi)", b.Dx(), b.Dy())
	}
	red := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 > 150 && g>>8 < 60 && b>>8 < 60 {
				red++
			}
		}
	}
	if red < 100 {
		t.Errorf("only %d red pixels: the full-render series is not drawn", red)
	}
	if err := WriteGrowthPlot(path, samples[:1]); err == nil {
		t.Error("a one-size curve was drawn, want an error")
	}
}
