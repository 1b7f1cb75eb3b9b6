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

package main

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/utils/clock"

	"github.com/siteops/siteops/test/managerproc"
)

// eventually bounds every wait of these tests on a loaded 2-core machine; it is not a timing assertion.
const eventually = 90 * time.Second

// offsetClock is the real clock moved forward by offset: schedules that fall due within offset of an
// object's creation are due at once, and durations still grow as real time passes.
type offsetClock struct {
	clock.RealClock
	offset time.Duration
}

// Now is the real time plus offset.
func (c offsetClock) Now() time.Time { return time.Now().Add(c.offset) }

// Since is the time from t to Now.
func (c offsetClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago (managerproc.LoopbackPort).
func freePort(t *testing.T) int { return managerproc.LoopbackPort(t) }

// lockedBuffer is a bytes.Buffer safe for the logger's writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// scraper reads the manager's metrics endpoint the way Prometheus does: HTTPS, bearer token.
type scraper struct {
	url    string
	client *http.Client
}

// newScraper scrapes https://addr/metrics. The manager's certificate is self-signed (no cert dir), so it is
// not verified; the client offers HTTP/2 so the test sees that the server refuses it.
func newScraper(addr string) *scraper {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true,
		NextProtos: []string{"h2", "http/1.1"}}, //nolint:gosec // test, self-signed
		ForceAttemptHTTP2: true}
	return &scraper{url: "https://" + addr + "/metrics", client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// get scrapes with token ("" sends none) and returns the response and its body.
func (s *scraper) get(token string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return nil, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// families scrapes with token and parses the text exposition; anything but 200 is an error.
func (s *scraper) families(token string) (map[string]*dto.MetricFamily, error) {
	resp, body, err := s.get(token)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", s.url, resp.Status, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(body))
}

// series returns the metrics of family name whose labels include want.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	for _, m := range fams[name].GetMetric() {
		n := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				n++
			}
		}
		if n == len(want) {
			out = append(out, m)
		}
	}
	return out
}

// value sums the counter or gauge values of the series of name that match want.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	for _, m := range series(fams, name, want) {
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

// histogramOf returns the sample count and sum of the histogram series of name that match want (summed).
func histogramOf(fams map[string]*dto.MetricFamily, name string, want map[string]string) (uint64, float64) {
	var count uint64
	var sum float64
	for _, m := range series(fams, name, want) {
		count += m.GetHistogram().GetSampleCount()
		sum += m.GetHistogram().GetSampleSum()
	}
	return count, sum
}

// addrOf is 127.0.0.1:port.
func addrOf(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
