// Package shadow lets a manager that does not hold the leader lease run its reconcilers without changing
// anything: every write goes to the apiserver as a server-side dry run (so admission and validation still
// answer) and is recorded in a Report, served as JSON on the preview Service and as metrics. Before a
// blue/green promotion the report tells what the new version would change.
package shadow

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Client is a client.Client whose writes are recorded in a Report and, when DryRun is set, sent as
// server-side dry runs. Reads pass through unchanged.
type Client struct {
	client.Client
	// Report records every write.
	Report *Report
	// DryRun sends every write with dryRun=All, so nothing is persisted.
	DryRun bool
}

// NewClient wraps c so that every write is recorded in report; with dryRun nothing is persisted.
func NewClient(c client.Client, report *Report, dryRun bool) *Client {
	return &Client{Client: c, Report: report, DryRun: dryRun}
}

// Create records and sends a create.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.record("create", "", obj, createdFields(obj))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Create(ctx, obj, opts...)
}

// Update records the fields that differ from the cached object and sends an update.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.record("update", "", obj, c.changedFields(ctx, obj))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Update(ctx, obj, opts...)
}

// Patch records the fields the patch sets and sends it.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.record("patch", "", obj, patchFields(obj, patch))
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// Delete records and sends a delete.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.record("delete", "", obj, nil)
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.Delete(ctx, obj, opts...)
}

// DeleteAllOf records and sends a collection delete.
func (c *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.record("deletecollection", "", obj, nil)
	if c.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

// Apply is refused in shadow mode: siteops' reconcilers do not use server-side apply, and an unrecorded write
// path must not exist.
func (c *Client) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return fmt.Errorf("shadow client: server-side apply is not supported")
}

// Status returns a writer for the status subresource with the same recording and dry-run behaviour.
func (c *Client) Status() client.SubResourceWriter {
	return &subResourceClient{SubResourceClient: c.Client.SubResource("status"), parent: c, name: "status"}
}

// SubResource returns a client for a subresource with the same recording and dry-run behaviour.
func (c *Client) SubResource(name string) client.SubResourceClient {
	return &subResourceClient{SubResourceClient: c.Client.SubResource(name), parent: c, name: name}
}

// record adds one write to the report.
func (c *Client) record(verb, sub string, obj client.Object, fields []string) {
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
	parent *Client
	name   string
}

func (s *subResourceClient) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	s.parent.record("create", s.name, obj, nil)
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.parent.record("update", s.name, obj, s.parent.changedFields(ctx, obj))
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.parent.record("patch", s.name, obj, patchFields(obj, patch))
	if s.parent.DryRun {
		opts = append(opts, client.DryRunAll)
	}
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return fmt.Errorf("shadow client: server-side apply of %s is not supported", s.name)
}
