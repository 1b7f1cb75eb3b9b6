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
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// TestWavesDeliverSiteBySiteOnTheFleet runs issue 17's waves on the local fleet: site A is wave "first" (soak
// 20s), site B is in the implicit last wave; progressDeadline 5m, onFailure Revert. Then:
//  1. a base change reaches site A while site B keeps its objects (resourceVersions) and its rendered
//     folder; SiteSync says Soaking with B pending on wave first; once A is Healthy and soaked B gets it;
//  2. a base change that breaks A (no node matches web's nodeSelector, so the Deployment exceeds its progress
//     deadline and Argo CD says Degraded) never reaches B: the rollout halts naming A (RolloutHalted), A's
//     last healthy output is committed back (trailer Siteops-Revert-Of) and site A runs it again; a fix
//     pushed to Git starts a new rollout that completes;
//     `siteops dashboard`, open in headless Chromium through steps 1 and 2, shows B's cell Pending, Published
//     and Healthy in turn and A halted with Argo CD's message, without a reload; its Fleet and Site views too,
//     the Site view with A's rendered commits, and the Ledger view with the deployments so far;
//  3. a freeze window open now holds a push (no rendered commit, phase Frozen until the window's end) until
//     `kubectl annotate sitesync sites siteops.dev/override-freeze="<revision> <reason>"` publishes it
//     (trailer, event).
//
// It runs beside other tests. Its sites are namespaces of a site cluster that the waves tests share (siteHost).
func TestWavesDeliverSiteBySiteOnTheFleet(t *testing.T) {
	t.Parallel()
	sites := []string{"waves-a", "waves-b"}
	a, b := sites[0], sites[1]
	// The progress deadline is a safety net here: the broken site of step 2 halts the rollout by turning
	// Degraded. On a loaded machine Argo CD's first sync of a new site can take more than a minute.
	f := newFleetOn(t, "waves", siteHost(t), fleetSource(sites), fmt.Sprintf(`waves:
- name: first
  sites: [%s]
  soak: 20s
progressDeadline: 5m
onFailure: Revert
`, a))
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })

	// The first render goes wave by wave too: A, then B once A is Healthy and soaked.
	waitFor(t, 6*time.Minute, "first rollout Complete, both sites Delivered", func() (bool, string) {
		got := f.rollout("phase") + " " + f.site(a, "delivery") + " " + f.site(b, "delivery")
		return got == "Complete Delivered Delivered", got + " " + f.rollout("message")
	})
	f.transcript("first rollout complete")

	// The dashboard's Rollout view stays open from here on; it must follow the rollout without a reload.
	dash := openDashboard(t, f.namespace, "/sitesyncs/"+f.namespace+"/sites")

	// 1. A base change: wave first (A) only, B untouched while A is not yet Healthy and while it soaks.
	rvB, folderB := f.objectsOf(b), f.renderedFolder(b)
	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	release2 := f.push("base: release 2")
	toA := f.renderedHead()
	// One read of the SiteSync per try, so the phase, what A waits for and A's soak end are of one moment.
	var soakUntil time.Time
	waitFor(t, 3*time.Minute, "wave first soaking "+short(release2)+", "+b+" pending on it", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave", inRollout(b, "state"), inRollout(b, "waitingFor"),
			inRollout(a, "state"), inRollout(a, "waitingFor"), inRollout(a, "soakUntil"))
		v := strings.Split(got, "|")
		if len(v) != 8 || strings.Join(v[:6], "|") != release2+"|Soaking|first|Pending|wave first|Published" {
			return false, got
		}
		if !strings.HasPrefix(v[6], "soak, ") {
			t.Fatalf("%s waits for %q while the rollout is Soaking, want the soak", a, v[6])
		}
		var err error
		soakUntil, err = time.Parse(time.RFC3339, v[7])
		return err == nil, got
	})
	if got := f.atSite(a, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
		t.Fatalf("site %s release %q, want 2", a, got)
	}
	// B is untouched while A soaks; when this test looks after the soak (a slow machine), B's publish time
	// below shows it came after the soak.
	if time.Now().Before(soakUntil) {
		f.checkUntouched(b, rvB, folderB, "while "+a+" soaks")
		f.transcript("wave first soaking, " + b + " pending")
	}

	waitFor(t, 3*time.Minute, "rollout of "+short(release2)+" Complete", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == release2+"|Complete", got + " " + f.rollout("message")
	})
	if published, err := time.Parse(time.RFC3339, f.rolloutSite(b, "publishedAt")); err != nil ||
		published.Before(soakUntil) {
		t.Fatalf("%s published at %q, want at or after %s's soak end %s (%v)", b, f.rolloutSite(b, "publishedAt"), a,
			soakUntil.Format(time.RFC3339), err)
	}
	toB := f.siteField(b, "renderedCommit")
	if toB == toA || f.isAncestor(toB, toA) {
		t.Fatalf("%s's rendered commit %s is not after %s's %s", b, short(toB), a, short(toA))
	}
	f.waitDelivered(3*time.Minute, map[string]string{a: toA, b: toB})
	if got := f.atSite(b, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
		t.Fatalf("site %s release %q, want 2", b, got)
	}
	f.waitEvent(gitopsv1alpha1.EventWaveFinished, "wave first: "+a)
	f.transcript("both waves delivered")
	if got := states(dash.seen("cell-" + b)); !inOrder(got, []string{"Pending", "Published", "Delivered"}) {
		t.Fatalf("the dashboard's cell of %s showed %v, want Pending, Published and Delivered in turn", b, got)
	} else {
		t.Logf("the open dashboard page showed %s's cell %v, without a reload", b, got)
	}

	// 2. A base change that breaks A: its web can never become available.
	rvB, folderB = f.objectsOf(b), f.renderedFolder(b)
	healthyA, healthyCommitA := f.renderedFolder(a), f.siteField(a, "renderedCommit")
	editFile(t, f.work, "base/site-info.yaml", `release: "2"`, `release: "3"`)
	editFile(t, f.work, "base/web.yaml", "    spec:\n      containers:",
		"    spec:\n      nodeSelector: {siteops.dev/no-such-node: \"true\"}\n      containers:")
	broken := f.push("base: release 3, web on a node that does not exist")
	brokenA := f.renderedHead()
	waitFor(t, 4*time.Minute, "rollout of "+short(broken)+" Halted naming "+a+", "+a+" reverted", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave") + " " + f.rolloutSite(a, "state")
		msg := f.rollout("message")
		return got == broken+"|Halted|first Reverted" && strings.Contains(msg, a+" ") &&
			strings.Contains(msg, "halted at wave first"), got + " " + msg
	})
	revert := f.renderedHead()
	msg := f.commitMessage(revert)
	if !strings.Contains(msg, gitops.TrailerRevertOf+": "+brokenA) ||
		!strings.Contains(msg, "revert "+a+" to the last healthy output") {
		t.Fatalf("the rendered head %s is not the revert of %s:\n%s", short(revert), short(brokenA), msg)
	}
	if !f.isAncestor(brokenA, revert) {
		t.Fatalf("the failed commit %s is not in the history of the revert %s (force-pushed?)", short(brokenA), short(revert))
	}
	if got := f.renderedFolder(a); got != healthyA {
		t.Fatalf("%s's folder after the revert differs from its last healthy output (rendered commit %s):\n%s\nwant:\n%s",
			a, short(healthyCommitA), got, healthyA)
	}
	f.checkDashboardShowsTheHalt(dash, a)
	f.waitDelivered(4*time.Minute, map[string]string{a: revert})
	waitFor(t, 2*time.Minute, "site "+a+" back on the old spec", func() (bool, string) {
		got := f.atSite(a, "get", "deploy", "web", "-o",
			"jsonpath={.spec.template.spec.nodeSelector}|{.status.availableReplicas}") +
			"|" + f.atSite(a, "get", "cm", "site-info", "-o", "jsonpath={.data.release}")
		return got == "|2|2", got
	})
	if got := f.site(a, "health"); got != "Healthy" {
		t.Fatalf("%s health %q after the revert, want Healthy", a, got)
	}
	if got := f.rolloutSite(b, "state", "waitingFor"); !strings.HasPrefix(got,
		"Pending|the rollout halted at wave first") {
		t.Fatalf("%s in the halted rollout: %q", b, got)
	}
	f.checkUntouched(b, rvB, folderB, "by the halted revision")
	f.checkNeverPublished(b, broken)
	f.waitEvent(gitopsv1alpha1.EventRolloutHalted, a)
	f.waitEvent(gitopsv1alpha1.EventSiteReverted, "site "+a)
	f.transcript(a + " halted and reverted")

	// The fix, pushed to Git, starts a new rollout that completes: A, soak, B.
	editFile(t, f.work, "base/web.yaml", "      nodeSelector: {siteops.dev/no-such-node: \"true\"}\n", "")
	fix := f.push("base: web back on any node")
	fixA := f.renderedHead()
	waitFor(t, 5*time.Minute, "rollout of the fix "+short(fix)+" Complete", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == fix+"|Complete", got + " " + f.rollout("message")
	})
	f.waitDelivered(3*time.Minute, map[string]string{a: fixA, b: f.siteField(b, "renderedCommit")})
	for _, s := range []string{a, b} {
		if got := f.atSite(s, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "3" {
			t.Fatalf("site %s release %q after the fix, want 3", s, got)
		}
	}
	f.transcript("the fix rolled out")

	// 3. A freeze window open now (daily, opened at the start of the previous hour, for 6h) holds a push.
	open := time.Now().UTC().Add(-time.Hour).Truncate(time.Hour)
	closes := open.Add(6 * time.Hour)
	kubectl(t, "-n", f.namespace, "patch", "sitesync", "sites", "--type=merge", "-p", fmt.Sprintf(
		`{"spec":{"freeze":[{"schedule":"%d %d * * *","duration":"6h","timeZone":"UTC"}]}}`, open.Minute(), open.Hour()))
	head := f.renderedHead()
	editFile(t, f.work, "base/site-info.yaml", `release: "3"`, `release: "4"`)
	held := f.announce("base: release 4 during a freeze")
	waitFor(t, 2*time.Minute, "rollout of "+short(held)+" Frozen until "+
		closes.Format(time.RFC3339), func() (bool, string) {
		got := f.rollout("revision", "phase", "frozenUntil") + " " + f.rolloutSite(a, "state") + " " +
			f.rolloutSite(b, "state")
		return got == held+"|Frozen|"+closes.Format(time.RFC3339)+" Pending Pending", got + " " + f.rollout("message")
	})
	if got := f.rolloutSite(a, "waitingFor"); !strings.Contains(got,
		"freeze window closing at "+closes.Format(time.RFC3339)) {
		t.Fatalf("%s waits for %q, want the freeze window", a, got)
	}
	f.waitEvent(gitopsv1alpha1.EventRolloutFrozen, "until "+closes.Format(time.RFC3339))
	if got := f.renderedHead(); got != head {
		t.Fatalf("a push during a freeze window made rendered commit %s (head was %s)", short(got), short(head))
	}
	f.transcript("a push held by a freeze window")

	const reason = "INC-4711 hotfix approved by on-call"
	kubectl(t, "-n", f.namespace, "annotate", "sitesync", "sites",
		gitopsv1alpha1.OverrideFreezeAnnotation+"="+short(held)+" "+reason)
	waitRendered(t, f.bare, held)
	overridden := f.renderedHead()
	if msg := f.commitMessage(overridden); !strings.Contains(msg, gitops.TrailerFreezeOverride+": "+reason) {
		t.Fatalf("the rendered commit %s published during the freeze does not carry the reason:\n%s", short(overridden), msg)
	}
	f.waitEvent(gitopsv1alpha1.EventFreezeOverridden, reason)
	waitFor(t, 5*time.Minute, "rollout of "+short(held)+" Complete under the override", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == held+"|Complete", got + " " + f.rollout("message")
	})
	f.waitDelivered(3*time.Minute, map[string]string{a: overridden, b: f.siteField(b, "renderedCommit")})
	for _, s := range []string{a, b} {
		if got := f.atSite(s, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "4" {
			t.Fatalf("site %s release %q after the override, want 4", s, got)
		}
	}
	f.transcript("the freeze overridden")
}

// rollout returns fields of the SiteSync's status.rollout, joined by "|".
func (f *fleet) rollout(fields ...string) string {
	var path []string
	for _, fl := range fields {
		path = append(path, "{.status.rollout."+fl+"}")
	}
	return jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o", "jsonpath="+strings.Join(path, "|"))
}

// inRollout is the path, under status.rollout, of a field of the site's entry in status.rollout.sites.
func inRollout(site, field string) string { return "sites[?(@.name==\"" + site + "\")]." + field }

// rolloutSite returns fields of the site's entry in status.rollout.sites, joined by "|".
func (f *fleet) rolloutSite(site string, fields ...string) string {
	path := make([]string, len(fields))
	for i, fl := range fields {
		path[i] = inRollout(site, fl)
	}
	return f.rollout(path...)
}

// siteField is one field of the site's entry in status.sites, failing the test when it is empty.
func (f *fleet) siteField(site, field string) string {
	f.t.Helper()
	v := f.site(site, field)
	if v == "" {
		f.t.Fatalf("%s has no %s in the SiteSync's status", site, field)
	}
	return v
}

// checkDashboardShowsTheHalt checks that the open dashboard page showed the rollout Halted and site's cell
// Halted or Reverted with Argo CD's message about it, without a reload.
func (f *fleet) checkDashboardShowsTheHalt(dash *dashboardTab, site string) {
	f.t.Helper()
	waitFor(f.t, time.Minute, "the dashboard's phase Halted", func() (bool, string) {
		got := dash.seen("phase")
		return slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "|Halted") }),
			strings.Join(got, "; ")
	})
	cell := dash.seen("cell-" + site)
	i := slices.IndexFunc(cell, func(s string) bool {
		return (strings.HasPrefix(s, "Halted|") || strings.HasPrefix(s, "Reverted|")) &&
			strings.Contains(s, "Argo CD: ") && strings.Contains(s, "exceeded its progress deadline")
	})
	if i < 0 {
		f.t.Fatalf("the dashboard's cell of %s never showed it halted with Argo CD's message; it showed %v", site, cell)
	}
	f.t.Logf("the open dashboard page showed %s's cell %q", site, cell[i])
	// The other views, opened afresh: the Fleet view's row and the site's own view say it too, the site's view
	// lists its rendered commits (the first render and the two changes at least), and the Ledger view counts
	// the rollouts delivered so far.
	dash.run("opening the Fleet view", chromedp.Navigate(dash.url+"/"),
		chromedp.WaitVisible(`#sitesync-`+f.namespace+`-sites .phase-Halted`))
	sync := "/sitesyncs/" + f.namespace + "/sites"
	dash.run("opening the Site view of "+site, chromedp.Navigate(dash.url+sync+"/sites/"+site),
		chromedp.WaitVisible(`#site-state`), chromedp.WaitVisible(`article.commit`))
	if n, _ := strconv.Atoi(dash.eval(`String(document.querySelectorAll("article.commit").length)`)); n < 3 {
		f.t.Fatalf("the Site view of %s lists %d rendered commits, want 3 or more", site, n)
	}
	dash.run("opening the Ledger view", chromedp.Navigate(dash.url+sync+"/ledger"),
		chromedp.WaitVisible(`#deployment-frequency`))
	counted := dash.eval(`document.querySelector("#deployment-frequency td:last-child").textContent`)
	if n, _ := strconv.Atoi(strings.Fields(counted + " 0")[0]); n < 1 {
		f.t.Fatalf("the Ledger view counts %q, want a deployment at least (the first rollout)", counted)
	}
	f.t.Logf("the dashboard's Site view lists %s's rendered commits; its Ledger view counts %s", site, counted)
}

// objectsOf lists the site cluster's ConfigMaps and Deployments in siteops-system with their resourceVersions.
func (f *fleet) objectsOf(site string) string {
	f.t.Helper()
	out := f.atSite(site, "get", "cm,deploy", "-o",
		"jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion} {end}")
	if !strings.Contains(out, "ConfigMap/site-info=") || !strings.Contains(out, "Deployment/web=") {
		f.t.Fatalf("site %s has %q, want site-info and web", site, out)
	}
	return out
}

// renderedFolder is the site's manifest at the head of the rendered branch.
func (f *fleet) renderedFolder(site string) string {
	f.t.Helper()
	return git(f.t, f.bare, "show", "rendered:"+site+"/"+gitops.ManifestFile)
}

// commitMessage is a rendered commit's message.
func (f *fleet) commitMessage(commit string) string {
	f.t.Helper()
	return git(f.t, f.bare, "log", "-1", "--format=%B", commit)
}

// isAncestor reports whether commit a is in the history of commit b.
func (f *fleet) isAncestor(a, b string) bool {
	_, err := gitOut(f.bare, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// checkUntouched fails the test when the site's cluster objects or rendered folder changed since rv, folder.
func (f *fleet) checkUntouched(site, rv, folder, when string) {
	f.t.Helper()
	if got := f.objectsOf(site); got != rv {
		f.t.Fatalf("site %s changed %s: resourceVersions %s, then %s", site, when, rv, got)
	}
	if got := f.renderedFolder(site); got != folder {
		f.t.Fatalf("%s's rendered folder changed %s:\n%s\nwas:\n%s", site, when, got, folder)
	}
}

// checkNeverPublished fails the test when a rendered commit of source revision rev lists site.
func (f *fleet) checkNeverPublished(site, rev string) {
	f.t.Helper()
	log := git(f.t, f.bare, "log", "--format=%H%n%B%x00", "rendered")
	for _, c := range strings.Split(log, "\x00") {
		if !strings.Contains(c, gitops.TrailerSourceRevision+": "+rev) {
			continue
		}
		for _, line := range strings.Split(c, "\n") {
			if sites, ok := strings.CutPrefix(line, gitops.TrailerSites+": "); ok &&
				strings.Contains(","+sites+",", ","+site+",") {
				f.t.Fatalf("rendered commit of %s lists %s, which the halted rollout must not reach:\n%s", short(rev), site, c)
			}
		}
	}
}

// waitEvent waits for an event of the SiteSync with reason whose message contains want.
func (f *fleet) waitEvent(reason, want string) {
	f.t.Helper()
	waitFor(f.t, time.Minute, reason+" event with "+want, func() (bool, string) {
		ev := f.eventLines("reason=" + reason)
		return strings.Contains(ev, want), ev
	})
}
