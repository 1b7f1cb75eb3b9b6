//go:build e2e

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

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// errorRateEndpoint is the HTTP endpoint a web metric reads: {"errorRate": <rate>}, the rate set by the test.
// It records each request's query (site and revision).
type errorRateEndpoint struct {
	*httptest.Server
	rate    atomic.Value // string
	mu      sync.Mutex
	queries []string
}

func newErrorRateEndpoint(t *testing.T, rate string) *errorRateEndpoint {
	e := &errorRateEndpoint{}
	e.rate.Store(rate)
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.queries = append(e.queries, r.URL.RawQuery)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"errorRate": %s}`, e.rate.Load())
	}))
	t.Cleanup(e.Close)
	return e
}

// asked reports whether a request carried query.
func (e *errorRateEndpoint) asked(query string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, q := range e.queries {
		if q == query {
			return true
		}
	}
	return false
}

// errorRateTemplate is an AnalysisTemplate with one web metric: an error rate below 5% passes, above 20%
// fails, and one in between is Inconclusive.
const errorRateTemplate = `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: error-rate}
spec:
  args: [{name: site}, {name: revision}, {name: endpoint}]
  metrics:
  - name: error-rate
    count: 1
    failureLimit: 0
    successCondition: result < 0.05
    failureCondition: result > 0.2
    provider:
      web:
        url: "{{args.endpoint}}/?site={{args.site}}&revision={{args.revision}}"
        jsonPath: "{$.errorRate}"
`

// TestWavesAnalysisVerifiesEachWaveOnTheFleet runs issue 31's analysis per wave on the local fleet, where the
// hub runs Argo Rollouts' controller: site A is wave "first" (soak 5s, verified by the AnalysisTemplate
// error-rate, a web metric reading an endpoint the test serves on 127.0.0.1), site B is in the implicit last
// wave; onFailure Revert. Then:
//  1. a base change passes wave first's analysis (the metric is asked with A's name and the revision) and
//     reaches B;
//  2. with the endpoint flipped to a 50% error rate, a second change fails wave first's analysis: B never
//     gets it, A is reverted (a Siteops-Revert-Of commit), and `siteops status` shows the failing measurement;
//  3. at a 10% error rate a third change's run is Inconclusive: B does not get it until a person accepts the
//     run (siteops.dev/accept-analysis-first);
//  4. a fourth change, Inconclusive too, is accepted while the rollout is paused (`siteops rollout pause`):
//     wave first is done, and B gets the change only after `siteops rollout resume`.
//
// It runs beside other tests. Its sites are namespaces of a site cluster that the waves tests share (siteHost).
func TestWavesAnalysisVerifiesEachWaveOnTheFleet(t *testing.T) {
	t.Parallel()
	sites := []string{"analysis-a", "analysis-b"}
	a, b := sites[0], sites[1]
	endpoint := newErrorRateEndpoint(t, "0.01")
	f := newFleetOn(t, "wave-analysis", siteHost(t), fleetSource(sites), fmt.Sprintf(`waves:
- name: first
  sites: [%s]
  soak: 5s
onFailure: Revert
`, a))
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })
	waitFor(t, 6*time.Minute, "first rollout Complete, both sites Delivered", func() (bool, string) {
		got := f.rollout("phase") + " " + f.site(a, "delivery") + " " + f.site(b, "delivery")
		return got == "Complete Delivered Delivered", got + " " + f.rollout("message")
	})

	// The template, then wave first verified by it.
	apply(t, f.namespace, errorRateTemplate)
	kubectl(t, "-n", f.namespace, "patch", "sitesync", "sites", "--type=merge", "-p", fmt.Sprintf(
		`{"spec":{"waves":[{"name":"first","sites":[%q],"soak":"5s","analysis":{"templates":[{"templateName":"error-rate"}],`+
			`"args":[{"name":"endpoint","value":%q}]}}]}}`, a, endpoint.URL))

	// 1. A base change passes wave first's analysis and reaches B.
	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	release2 := f.push("base: release 2")
	waitFor(t, 5*time.Minute, "rollout of "+short(release2)+" Complete", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == release2+"|Complete", got + " " + f.rollout("message")
	})
	run := "sites-first-" + release2[:10]
	if got := jsonpath("-n", f.namespace, "get", "analysisrun", run, "-o",
		"jsonpath={.status.phase}|{.metadata.ownerReferences[0].kind}"); got != "Successful|SiteSync" {
		t.Fatalf("AnalysisRun %s: %q, want Successful and owned by the SiteSync", run, got)
	}
	if q := "site=" + a + "&revision=" + release2; !endpoint.asked(q) {
		t.Fatalf("the metric never asked for %q; asked %v", q, endpoint.queries)
	}
	f.waitDelivered(3*time.Minute, map[string]string{b: f.siteField(b, "renderedCommit")})
	if got := f.atSite(b, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
		t.Fatalf("site %s release %q, want 2", b, got)
	}
	t.Logf("analysis of wave first: AnalysisStarted at %s, run started at %s, measured at %s, "+
		"wave unlisted started at %s", f.eventTime(gitopsv1alpha1.EventAnalysisStarted, "wave first"),
		jsonpath("-n", f.namespace, "get", "analysisrun", run, "-o", "jsonpath={.status.startedAt}"),
		jsonpath("-n", f.namespace, "get", "analysisrun", run, "-o",
			"jsonpath={.status.metricResults[0].measurements[0].finishedAt}"),
		f.eventTime(gitopsv1alpha1.EventWaveStarted, "wave unlisted: committing "+release2[:12]))
	f.transcript("wave first verified, both waves delivered")

	// 2. The endpoint reports a 50% error rate: the next change fails wave first's analysis.
	endpoint.rate.Store("0.5")
	folderB := f.renderedFolder(b)
	editFile(t, f.work, "base/site-info.yaml", `release: "2"`, `release: "3"`)
	bad := f.push("base: release 3")
	badA := f.renderedHead()
	const measured = "metric error-rate Failed, measured Failed 0.5"
	waitFor(t, 5*time.Minute, "rollout of "+short(bad)+" Halted by the analysis, "+a+" reverted", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave") + " " + f.rolloutSite(a, "state")
		msg := f.rollout("message")
		return got == bad+"|Halted|first Reverted" && strings.Contains(msg, measured), got + " " + msg
	})
	revert := f.renderedHead()
	if msg := f.commitMessage(revert); !strings.Contains(msg, gitops.TrailerRevertOf+": "+badA) {
		t.Fatalf("the rendered head %s is not the revert of %s:\n%s", short(revert), short(badA), msg)
	}
	f.waitDelivered(4*time.Minute, map[string]string{a: revert})
	if got := f.atSite(a, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
		t.Fatalf("site %s release %q after the revert, want 2", a, got)
	}
	if got := f.renderedFolder(b); got != folderB {
		t.Fatalf("%s's rendered folder changed by the halted revision:\n%s", b, got)
	}
	f.checkNeverPublished(b, bad)
	f.waitEvent(gitopsv1alpha1.EventRolloutHalted, measured)
	if out := siteopsStatus(t, f.namespace); !strings.Contains(out, measured) {
		t.Fatalf("siteops status does not show the failing measurement %q:\n%s", measured, out)
	}
	badRun := "sites-first-" + bad[:10]
	t.Logf("failed measurement at %s, RolloutHalted at %s",
		jsonpath("-n", f.namespace, "get", "analysisrun", badRun, "-o",
			"jsonpath={.status.metricResults[0].measurements[0].finishedAt}"),
		f.eventTime(gitopsv1alpha1.EventRolloutHalted, measured))
	f.transcript("wave first's analysis failed: halted and reverted")

	// 3. An Inconclusive run waits for a person.
	endpoint.rate.Store("0.1")
	editFile(t, f.work, "base/site-info.yaml", `release: "3"`, `release: "4"`)
	release4 := f.push("base: release 4")
	f.waitInconclusive(release4)
	f.checkNeverPublished(b, release4)
	kubectl(t, "-n", f.namespace, "annotate", "sitesync", "sites", "siteops.dev/accept-analysis-first="+release4)
	f.waitReleaseOn(b, release4, "4")

	// 4. A pause holds the next wave, whatever the analysis says, until resume.
	editFile(t, f.work, "base/site-info.yaml", `release: "4"`, `release: "5"`)
	release5 := f.push("base: release 5")
	f.waitInconclusive(release5)
	siteopsOnHub(t, []string{"rollout", "pause"}, "-n", f.namespace, "--reason", "e2e: hold the next wave", "sites")
	kubectl(t, "-n", f.namespace, "annotate", "--overwrite", "sitesync", "sites",
		"siteops.dev/accept-analysis-first="+release5)
	waitFor(t, 2*time.Minute, "rollout of "+short(release5)+" paused before wave unlisted", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave")
		return got == release5+"|Paused|unlisted", got + " " + f.rollout("message")
	})
	f.checkNeverPublished(b, release5)
	f.transcript("wave first accepted while paused: wave unlisted waits")
	siteopsOnHub(t, []string{"rollout", "resume"}, "-n", f.namespace, "sites")
	f.waitReleaseOn(b, release5, "5")
	f.waitEvent(gitopsv1alpha1.EventRolloutResumed, short(release5))
}

// waitInconclusive waits until wave first's run of rev is Inconclusive and the rollout waits for a person.
func (f *fleet) waitInconclusive(rev string) {
	f.t.Helper()
	waitFor(f.t, 5*time.Minute, "rollout of "+short(rev)+" Inconclusive at wave first", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave", "analysis.phase")
		return got == rev+"|Inconclusive|first|Inconclusive", got + " " + f.rollout("message")
	})
}

// waitReleaseOn waits until the rollout of rev is Complete and site is Delivered with base release n.
func (f *fleet) waitReleaseOn(site, rev, n string) {
	f.t.Helper()
	waitFor(f.t, 5*time.Minute, "rollout of "+short(rev)+" Complete", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == rev+"|Complete", got + " " + f.rollout("message")
	})
	f.waitDelivered(3*time.Minute, map[string]string{site: f.siteField(site, "renderedCommit")})
	got := f.atSite(site, "get", "cm", "site-info", "-o", "jsonpath={.data.release}")
	if got != n {
		f.t.Fatalf("site %s release %q, want %s", site, got, n)
	}
}

// eventTime is the time of the SiteSync's first event with reason whose message contains want.
func (f *fleet) eventTime(reason, want string) string {
	f.t.Helper()
	out := jsonpath("-n", f.namespace, "get", "events.events.k8s.io", "--field-selector", "reason="+reason,
		"-o", "jsonpath={range .items[*]}{.eventTime}|{.note}{\"\\n\"}{end}")
	for _, line := range strings.Split(out, "\n") {
		if at, note, ok := strings.Cut(line, "|"); ok && strings.Contains(note, want) {
			return at
		}
	}
	return "(none in " + out + ")"
}
