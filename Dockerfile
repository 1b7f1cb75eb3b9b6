# Build the manager: a static binary, no cgo. Go 1.26.10 carries the standard-library fixes `make vulncheck`
# reports against older 1.26 patch releases (crypto/x509, crypto/tls, net/http, net/textproto, html/template).
FROM golang:1.26.10 AS builder
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /workspace
COPY go.mod go.sum ./
RUN go mod download
COPY apis/ apis/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY gitops/ gitops/
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath \
    -ldflags "-s -w -X github.com/siteops/siteops/internal/version.Version=${VERSION}" -o manager ./cmd/manager

# Run it on distroless as a non-root user. SiteSync clones go to /tmp (an emptyDir in base/manager), so the
# root filesystem stays read-only. go-git needs no git binary for http(s) and ssh sources.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532
ENTRYPOINT ["/manager"]
