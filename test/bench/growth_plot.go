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
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// GrowthSample is one size of the growth curve, as plotted and kept in growth.json.
type GrowthSample struct {
	Sites int
	// Seconds: gitops.Sync's full render, a one-site incremental Sync (median), push → rendered commit (p50),
	// and the kustomize CLI scaled linearly from its sample.
	FullRender, OneSiteSync, PushToRendered, KustomizeScaled float64
	// MiB: the full render's peak RSS and the rendered branch's pack.
	PeakRSS, Pack float64
}

// series is one line of a panel.
type series struct {
	name   string
	value  func(GrowthSample) float64
	colour color.Color
	dashed bool
}

// WriteGrowthPlot draws samples (at least two sizes) as a PNG at path: on the left the times against sites,
// on the right peak RSS and pack size against sites, all on log-log axes.
func WriteGrowthPlot(path string, samples []GrowthSample) error {
	if len(samples) < 2 {
		return fmt.Errorf("a growth curve needs at least two sizes, got %d", len(samples))
	}
	times, err := growthPanel("Time vs sites", "seconds", samples, []series{
		{"full render (gitops.Sync)", func(s GrowthSample) float64 { return s.FullRender }, color.RGBA{R: 200, A: 255},
			false},
		{"one-site Sync", func(s GrowthSample) float64 { return s.OneSiteSync }, color.RGBA{B: 200, A: 255}, false},
		{"push → rendered p50", func(s GrowthSample) float64 { return s.PushToRendered }, color.RGBA{G: 150, A: 255}, false},
		{"kustomize CLI -P 2 (scaled)", func(s GrowthSample) float64 { return s.KustomizeScaled }, color.Gray{Y: 90}, true},
	})
	if err != nil {
		return err
	}
	memory, err := growthPanel("Memory and pack vs sites", "MiB", samples, []series{
		{"peak RSS, full render", func(s GrowthSample) float64 { return s.PeakRSS }, color.RGBA{R: 200, A: 255}, false},
		{"rendered branch pack", func(s GrowthSample) float64 { return s.Pack }, color.RGBA{B: 200, A: 255}, false},
	})
	if err != nil {
		return err
	}
	img := vgimg.New(vg.Points(960), vg.Points(420))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(20), PadTop: vg.Points(10), PadBottom: vg.Points(10),
		PadLeft: vg.Points(10), PadRight: vg.Points(10)}
	plots := [][]*plot.Plot{{times, memory}}
	canvases := plot.Align(plots, tiles, dc)
	times.Draw(canvases[0][0])
	memory.Draw(canvases[0][1])
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// growthPanel is one log-log panel of lines with points, one per series.
func growthPanel(title, unit string, samples []GrowthSample, lines []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "sites (× 20 resources)"
	p.Y.Label.Text = unit
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	for _, l := range lines {
		xys := make(plotter.XYs, 0, len(samples))
		for _, s := range samples {
			if v := l.value(s); v > 0 { // a log axis cannot show 0
				xys = append(xys, plotter.XY{X: float64(s.Sites), Y: v})
			}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", l.name, err)
		}
		line.Color, points.Color = l.colour, l.colour
		line.Width = vg.Points(1.5)
		if l.dashed {
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(l.name, line, points)
	}
	return p, nil
}
