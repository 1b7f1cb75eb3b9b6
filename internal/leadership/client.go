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

package leadership

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Client is a client.Client whose writes pass the Fence: each is refused with an error wrapping ErrNotLeading
// unless the manager leads at the moment it is made, so a write of a manager that lost the leadership never
// reaches the apiserver. Reads pass through unchanged.
type Client struct {
	client.Client
	fence *Fence
}

// NewClient wraps c so that its writes are admitted by fence.
func NewClient(c client.Client, fence *Fence) *Client {
	return &Client{Client: c, fence: fence}
}

// guard runs write if the fence admits it.
func guard(fence *Fence, verb string, obj client.Object, write func() error) error {
	exit, err := fence.Enter()
	if err != nil {
		return fmt.Errorf("%s %T %s/%s: %w", verb, obj, obj.GetNamespace(), obj.GetName(), err)
	}
	defer exit()
	return write()
}

// Create creates obj while the manager leads.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return guard(c.fence, "create", obj, func() error { return c.Client.Create(ctx, obj, opts...) })
}

// Update updates obj while the manager leads.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return guard(c.fence, "update", obj, func() error { return c.Client.Update(ctx, obj, opts...) })
}

// Patch patches obj while the manager leads.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return guard(c.fence, "patch", obj, func() error { return c.Client.Patch(ctx, obj, patch, opts...) })
}

// Delete deletes obj while the manager leads.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return guard(c.fence, "delete", obj, func() error { return c.Client.Delete(ctx, obj, opts...) })
}

// DeleteAllOf deletes a collection while the manager leads.
func (c *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	return guard(c.fence, "delete all of", obj, func() error { return c.Client.DeleteAllOf(ctx, obj, opts...) })
}

// Apply sends a server-side apply while the manager leads.
func (c *Client) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	exit, err := c.fence.Enter()
	if err != nil {
		return fmt.Errorf("apply %T: %w", obj, err)
	}
	defer exit()
	return c.Client.Apply(ctx, obj, opts...)
}

// Status returns a writer for the status subresource whose writes pass the fence.
func (c *Client) Status() client.SubResourceWriter {
	return c.SubResource("status")
}

// SubResource returns a client for a subresource whose writes pass the fence.
func (c *Client) SubResource(name string) client.SubResourceClient {
	return &subResourceClient{SubResourceClient: c.Client.SubResource(name), fence: c.fence, name: name}
}

// subResourceClient fences the writes to one subresource.
type subResourceClient struct {
	client.SubResourceClient
	fence *Fence
	name  string
}

func (s *subResourceClient) Create(ctx context.Context, obj, sub client.Object,
	opts ...client.SubResourceCreateOption) error {
	return guard(s.fence, "create "+s.name+" of", obj,
		func() error { return s.SubResourceClient.Create(ctx, obj, sub, opts...) })
}

func (s *subResourceClient) Update(ctx context.Context, obj client.Object,
	opts ...client.SubResourceUpdateOption) error {
	return guard(s.fence, "update "+s.name+" of", obj,
		func() error { return s.SubResourceClient.Update(ctx, obj, opts...) })
}

func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.SubResourcePatchOption) error {
	return guard(s.fence, "patch "+s.name+" of", obj,
		func() error { return s.SubResourceClient.Patch(ctx, obj, patch, opts...) })
}

func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration,
	opts ...client.SubResourceApplyOption) error {
	exit, err := s.fence.Enter()
	if err != nil {
		return fmt.Errorf("apply %s of %T: %w", s.name, obj, err)
	}
	defer exit()
	return s.SubResourceClient.Apply(ctx, obj, opts...)
}
