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

package v1alpha1

// Condition types of a SiteSync, in the kstatus convention: Ready is the summary ("True" is good),
// Reconciling and Stalled are abnormal-true ("True" means attention).
const (
	// ConditionReady is True when the last sync published every site; False says why not, including while a
	// rollout of waves holds the newest source revision (Halted, Frozen, WaitingForApproval).
	ConditionReady = "Ready"
	// ConditionReconciling is True while the controller is still working towards Ready, for example retrying
	// after a transient error.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the controller cannot make progress without a change by a person: a
	// missing Secret or key, an unknown ref, a URL or credentials the Git server refuses. It is not retried
	// until the SiteSync or one of its Secrets changes.
	ConditionStalled = "Stalled"
	// ConditionForeignCommits is True when the target branch carries commits siteops did not make since its
	// last commit. siteops keeps them (it never force-pushes) and only rewrites its own site folders.
	ConditionForeignCommits = "ForeignCommits"
)

// Condition reasons of a SiteSync. Each says what happened and what to do about it.
const (
	// ReasonSucceeded (Ready=True): every site rendered and the rendered branch is up to date; where Argo CD's
	// Applications are observed, every site is also synced and healthy at its rendered commit.
	ReasonSucceeded = "Succeeded"
	// ReasonSitesFailed (Ready=False): at least one site failed to render; its status.sites entry has the
	// kustomize or guard message. The other sites were published; fix the overlay and push.
	ReasonSitesFailed = "SitesFailed"
	// ReasonNoSites (Ready=False): no site was found under overlaysDir (or none of spec.sites exists). Add an
	// overlay folder with a kustomization.yaml, or fix spec.sites.
	ReasonNoSites = "NoSites"
	// ReasonSyncFailed (Ready=False, Reconciling=True): fetching the source or pushing the rendered branch
	// failed for a reason that may go away (network, Git server down, push race); it is retried with backoff.
	ReasonSyncFailed = "SyncFailed"
	// ReasonProgressing (Reconciling=True): the controller is retrying after ReasonSyncFailed.
	ReasonProgressing = "Progressing"
	// ReasonSecretNotFound (Stalled=True, Ready=False): a Secret named by source.secretRef,
	// target.secretRef or receiver.secretRef does not exist in the SiteSync's namespace. Creating it
	// re-triggers the sync.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonSecretInvalid (Stalled=True, Ready=False): a referenced Secret lacks a required key (the message
	// names the key, never a value). Fixing the Secret re-triggers the sync.
	ReasonSecretInvalid = "SecretInvalid"
	// ReasonSecretRefMissing (Stalled=True, Ready=False): source.url or target.url is an SSH URL and the
	// matching secretRef is not set. siteops never uses an SSH agent: an SSH URL needs a Secret with the keys
	// `identity` and `known_hosts`. Setting the secretRef re-triggers the sync.
	ReasonSecretRefMissing = "SecretRefMissing"
	// ReasonPermanentError (Stalled=True, Ready=False): the Git library reported an error retrying cannot
	// fix: an unsupported URL, a ref that does not exist, a missing overlays folder or rejected credentials.
	// Fix the spec, the repository or the Secret.
	ReasonPermanentError = "PermanentError"
	// ReasonSigningKeyInvalid (Stalled=True, Ready=False): the Secret of target.signingKey lacks key
	// `git.asc`, or it is not an ASCII-armored OpenPGP private key that can sign, or `passphrase` does not
	// unlock it. Nothing is pushed until the key can be read. Fix the Secret.
	ReasonSigningKeyInvalid = "SigningKeyInvalid"
	// ReasonOCIPublishFailed (Stalled=True, Ready=False): target.oci's registry refused the sites' artifacts
	// (credentials, repository name) or target.oci is not valid. The rendered branch is published; each
	// site's status.sites[].oci.message says what failed. Fix the spec, the Secret or the registry's
	// permissions. A registry that cannot be reached fails with ReasonSyncFailed instead, and is retried
	// with backoff.
	ReasonOCIPublishFailed = "OCIPublishFailed"
	// ReasonSourceNotVerified (Stalled=True, Ready=False): source.verify is set and the source commit is not
	// signed, or not by one of the trusted keys, or its signature is not valid. It is not rendered and the
	// rendered branch keeps the last verified output. Push a commit signed by a trusted key, or trust its
	// signer's key in the Secret of source.verify.
	ReasonSourceNotVerified = "SourceNotVerified"
	// ReasonRolloutProgressing (Reconciling=True): the rollout of spec.waves is on its way by itself: a wave is
	// published and not yet Synced and Healthy, soaks, or is analyzed (status.rollout, phase Progressing,
	// Soaking or Analyzing). The message names the revision and what the rollout waits for. Nothing to do.
	ReasonRolloutProgressing = "RolloutProgressing"
	// ReasonSuspended (Reconciling=False): spec.suspend is true; nothing is synced until it is cleared.
	ReasonSuspended = "Suspended"
	// ReasonIdle (Reconciling=False, Stalled=False): nothing is in progress and nothing is stuck.
	ReasonIdle = "Idle"
	// ReasonForeignCommitsFound (ForeignCommits=True): the message lists the foreign commits. Review them;
	// move the change into the source repository if it should last.
	ReasonForeignCommitsFound = "ForeignCommitsFound"
	// ReasonNoForeignCommits (ForeignCommits=False): every commit since siteops' last one is siteops' own.
	ReasonNoForeignCommits = "NoForeignCommits"
	// ReasonSitesNotDelivered (Ready=False): every site rendered, but Argo CD does not yet report some of them
	// synced and healthy at their rendered commit. status.sites[] says which, with Argo CD's message; a site
	// that stays Pending is usually still syncing or progressing, a Degraded or OutOfSync one needs a look.
	ReasonSitesNotDelivered = "SitesNotDelivered"
	// ReasonRolloutHalted (Ready=False): a site failed at the newest source revision and halted its rollout
	// (status.rollout, phase Halted); the revision is held from the later waves. The message names the
	// revision and the site. Push a fix: a newer revision starts a new rollout.
	ReasonRolloutHalted = "RolloutHalted"
	// ReasonRolloutFrozen (Ready=False): a freeze window holds the newest source revision from the sites it
	// changes (status.rollout, phase Frozen); the message names the revision and when the window closes. It
	// passes by itself, or siteops.dev/override-freeze publishes that revision.
	ReasonRolloutFrozen = "RolloutFrozen"
	// ReasonWaitingForApproval (Ready=False): a wave of the newest source revision waits for its approval
	// annotation (status.rollout, phase WaitingForApproval); the message names the revision and the annotation.
	ReasonWaitingForApproval = "WaitingForApproval"
	// ReasonAnalysisInconclusive (Ready=False): a wave's AnalysisRun of the newest source revision is
	// Inconclusive (status.rollout, phase Inconclusive) and waits for a person to accept or reject it; the
	// message names the revision and the annotations.
	ReasonAnalysisInconclusive = "AnalysisInconclusive"
	// ReasonRolloutPaused (Ready=False): siteops.dev/pause-rollout holds the newest source revision from the
	// waves it has not reached (status.rollout, phase Paused); the message names the revision.
	ReasonRolloutPaused = "RolloutPaused"
	// ReasonRolloutSitesFailed (Ready=False): the rollout of the newest source revision went on past sites
	// that failed within their wave's maxFailures (status.rollout.sites[], state Failed or Reverted); those
	// sites do not run it. The message names the revision and the sites. Push a fix.
	ReasonRolloutSitesFailed = "RolloutSitesFailed"
)

// Event reasons of the SiteSync controller; one event per visible action.
const (
	// EventRendered (Normal): a rendered commit was pushed to the target branch; the note names the sites whose
	// folders it changed (rendered, reverted or removed).
	EventRendered = "Rendered"
	// EventSiteFailed (Warning): a site failed to render (newly, or again with new inputs).
	EventSiteFailed = "SiteFailed"
	// EventForeignCommit (Warning): the target branch has new commits siteops did not make.
	EventForeignCommit = "ForeignCommit"
	// EventStalled (Warning): the SiteSync stalled on an error retrying cannot fix.
	EventStalled = "Stalled"
	// EventSyncFailed (Warning): a sync failed with an error that is retried.
	EventSyncFailed = "SyncFailed"
	// EventSiteDegraded (Warning): Argo CD reports a site's objects Degraded (or Missing) after a rendered
	// commit; the note carries Argo CD's message. Once per site and rendered commit.
	EventSiteDegraded = "SiteDegraded"
	// EventSiteOutOfSync (Warning): Argo CD reports a site OutOfSync and is not syncing it after a rendered
	// commit (a failed sync, or automated sync off); the note carries Argo CD's message. Once per site and
	// rendered commit.
	EventSiteOutOfSync = "SiteOutOfSync"
	// EventSiteUnreachable (Warning): Argo CD cannot read a site's cluster; the note carries Argo CD's error.
	// Once per site and rendered commit while it lasts.
	EventSiteUnreachable = "SiteUnreachable"
)
