# Build: a static binary (no cgo), so the runtime image needs no libc.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/tttbot .

# Run: distroless static holds CA certificates and a non-root user, nothing
# else. .ci/docker-runtime checks that the binary starts in such a root.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tttbot /tttbot
WORKDIR /data
USER nonroot:nonroot
ENTRYPOINT ["/tttbot"]
