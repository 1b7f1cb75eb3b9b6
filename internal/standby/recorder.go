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

// Package standby runs the manager's controllers while it does not hold the leader lease (standby mode),
// without changing anything: every write goes to the apiserver as a server-side dry run (so admission and
// validation still answer) and is recorded in a Report, served as JSON on the preview Service and as metrics.
// Before a blue/green promotion the report tells what the new version would change. The controllers do not
// know: the wiring gives the standby reconcilers a dry-run WriteRecorder and runs them through a Gate.
package standby

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WriteRecorder is a client.Client whose writes are recorded in a Report and, when DryRun is set, sent as
// server-side dry runs. Reads pass through unchanged.
type WriteRecorder struct {
	client.Client
	// Report records every write.
	Report *Report
	// DryRun sends every write with dryRun=All, so nothing is persisted.
	DryRun bool
}

// NewWriteRecorder wraps c so that every write is recorded in report; with dryRun nothing is persisted.
func NewWriteRecorder(c client.Client, report *Report, dryRun bool) *WriteRecorder {
	return &WriteRecorder{Client: c, Report: report, DryRun: dryRun}
}

// Create records and sends a create.
func (c *WriteRecorder) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.record("create", "", obj, createdFields(obj))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Create(ctx, obj, opts...)
}

// Update records the fields that differ from the cached object and sends an update.
func (c *WriteRecorder) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.record("update", "", obj, c.changedFields(ctx, obj))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Update(ctx, obj, opts...)
}

// Patch records the fields the patch sets and sends it.
func (c *WriteRecorder) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.PatchOption) error {
	c.record("patch", "", obj, patchFields(obj, patch))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// Delete records and sends a delete.
func (c *WriteRecorder) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.record("delete", "", obj, nil)
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Delete(ctx, obj, opts...)
}

// DeleteAllOf records and sends a collection delete.
func (c *WriteRecorder) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.record("deletecollection", "", obj, nil)
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

// Apply sends a server-side apply and records it when it changes the object (or would, for a dry run), or
// when the apiserver refuses it: an apply of what the object already holds is no write, so a controller that
// applies its desired state on every reconcile does not fill the report with repeats, while one it keeps
// wanting and cannot have (a quota, an admission webhook) is recorded each time, as a create or patch is.
func (c *WriteRecorder) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	before, err := c.current(ctx, obj)
	if err != nil {
		return err
	}
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	before.sent = c.sendTime()
	if err := c.Client.Apply(ctx, obj, opts...); err != nil {
		c.recordRefusedApply(obj, before) // wanted all the same: a write the apiserver keeps refusing is a disagreement
		return err
	}
	c.recordApply(obj, before)
	return nil
}

// Status returns a writer for the status subresource with the same recording and dry-run behaviour.
func (c *WriteRecorder) Status() client.SubResourceWriter {
	return &subResourceClient{SubResourceClient: c.Client.SubResource("status"), parent: c, name: "status"}
}

// SubResource returns a client for a subresource with the same recording and dry-run behaviour.
func (c *WriteRecorder) SubResource(name string) client.SubResourceClient {
	return &subResourceClient{SubResourceClient: c.Client.SubResource(name), parent: c, name: name}
}

// record adds one write to the report.
func (c *WriteRecorder) record(verb, sub string, obj client.Object, fields []string) {
	if c.Report == nil {
		return
	}
	kind := kindOf(c.Client, obj)
	if sub != "" {
		kind += "/" + sub
	}
	c.Report.Record(Write{Verb: verb, Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), Fields: fields,
		ResourceVersion: obj.GetResourceVersion(), DryRun: c.DryRun})
}

// subResourceClient records and dry-runs writes to a subresource such as status.
type subResourceClient struct {
	client.SubResourceClient
	parent *WriteRecorder
	name   string
}

func (s *subResourceClient) Create(ctx context.Context, obj, sub client.Object,
	opts ...client.SubResourceCreateOption) error {
	s.parent.record("create", s.name, obj, nil)
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *subResourceClient) Update(ctx context.Context, obj client.Object,
	opts ...client.SubResourceUpdateOption) error {
	s.parent.record("update", s.name, obj, s.parent.changedFields(ctx, obj))
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.SubResourcePatchOption) error {
	s.parent.record("patch", s.name, obj, patchFields(obj, patch))
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

// Apply is refused: siteops' controllers patch their status once per reconcile, and a write path the
// report does not see must not exist.
func (s *subResourceClient) Apply(context.Context, runtime.ApplyConfiguration, ...client.SubResourceApplyOption) error {
	return fmt.Errorf("server-side apply of the %s subresource is not recorded, so it is not supported", s.name)
}
