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
	"bytes"
	"fmt"
	"html/template"
	"net/http"
)

// events streams a view's content as Server-Sent Events: the current content at once, then the new content
// each time a SiteSync the view shows changes. An unchanged rendering is not sent again. The stream ends when
// the page goes away or the server stops.
func (s *Server) events(resolve func(*http.Request) view) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := resolve(r)
		rc := http.NewResponseController(w)
		sub := s.hub.subscribe(v.key)
		defer s.hub.unsubscribe(sub)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		var last []byte
		for {
			body, _, err := s.content(r.Context(), v)
			if err != nil {
				body = []byte(fmt.Sprintf(`<p class="error" data-key="error">%s</p>`, template.HTMLEscapeString(err.Error())))
			}
			if !bytes.Equal(body, last) {
				if err := writeEvent(w, "view", body); err != nil {
					return
				}
				if err := rc.Flush(); err != nil {
					return
				}
				last = body
			}
			select {
			case <-r.Context().Done():
				return
			case <-sub.wake:
			}
		}
	}
}

// writeEvent writes one Server-Sent Event: its type and data, each line of data on a data: line.
func writeEvent(w http.ResponseWriter, event string, data []byte) error {
	var b bytes.Buffer
	b.WriteString("event: " + event + "\n")
	for _, line := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing an event: %w", err)
	}
	return nil
}
