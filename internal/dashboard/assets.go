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

package dashboard

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/clock"
)

// assets are the page templates and the stylesheet and script the pages load; no other file is served.
//
//go:embed templates/*.html static/*
var assets embed.FS

// staticFiles is the folder served under /static/.
func staticFiles() fs.FS {
	sub, err := fs.Sub(assets, "static")
	if err != nil {
		panic(err) // the folder is embedded at build time
	}
	return sub
}

// parseTemplates parses the views' templates with the functions that date their times by clk.
func parseTemplates(clk clock.PassiveClock) (*template.Template, error) {
	funcs := template.FuncMap{
		// tone is the colour a state word (a string, or one of the API's state types) is shown in (toneOf).
		"tone": func(state any) string { return toneOf(fmt.Sprint(state)) },
		// ago is how long ago t was, as kubectl prints it ("3m10s ago"), in a <time> the script keeps current.
		"ago": func(t time.Time) template.HTML {
			return timeTag(t, "ago", duration.HumanDuration(clk.Since(t))+" ago")
		},
		// left is how long until t ("in 4m"), or "now" once t has passed.
		"left": func(t time.Time) template.HTML {
			text := "now"
			if d := t.Sub(clk.Now()); d > 0 {
				text = "in " + duration.HumanDuration(d)
			}
			return timeTag(t, "left", text)
		},
		// percent is a rate as a percentage to a tenth ("40%", "33.3%").
		"percent": func(f float64) string { return strconv.FormatFloat(math.Round(1000*f)/10, 'f', -1, 64) + "%" },
		// seconds is a duration in seconds as Go prints it, to the second ("3h0m0s").
		"seconds": func(secs float64) string {
			return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
		},
		"short": short,
	}
	return template.New("dashboard").Funcs(funcs).ParseFS(assets, "templates/*.html")
}

// timeTag is a <time> element with t in UTC, the kind of relative text it holds and the text.
func timeTag(t time.Time, kind, text string) template.HTML {
	stamp := t.UTC().Format(time.RFC3339)
	return template.HTML(`<time datetime="` + stamp + `" data-rel="` + kind + `" title="` + stamp + `">` + //nolint:gosec
		template.HTMLEscapeString(text) + `</time>`)
}
