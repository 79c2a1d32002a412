# Build: a static binary (no cgo), so the runtime image needs no libc.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The version /ttt about and the logs show; .git is not in the build
# context, so say it: docker build --build-arg VERSION=$(git describe --tags --always --dirty) .
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/tttbot . && mkdir -p /out/data

# Run: distroless static holds CA certificates and a non-root user, nothing
# else. .ci/docker-runtime checks that the binary starts in such a root.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tttbot /tttbot
COPY --from=build --chown=65532:65532 /out/data /data
# Games live in the SQLite file /data/tttbot.db unless DATABASE_URL says
# otherwise: mount a volume there so they outlive the container (a named
# volume takes the directory's owner, the nonroot user 65532).
WORKDIR /data
VOLUME /data
ENV DATABASE_URL=/data/tttbot.db
# /healthz, /readyz and /metrics (Prometheus) on port 9090; publish it only
# to your monitoring. INTERACTIONS_ADDR, if you use the HTTP endpoint, is
# usually :8080.
ENV METRICS_ADDR=:9090
EXPOSE 9090
# The binary checks its own /readyz (no shell or curl in the image): the
# database answers and the gateway is connected or the endpoint serving.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["/tttbot", "-healthcheck"]
USER nonroot:nonroot
ENTRYPOINT ["/tttbot"]
