# The iggy image: static iggy-server and iggy binaries on an empty base,
# run as an unprivileged user, data in the /data volume.
#
#   make docker                      # builds it (see Makefile)
#   docker build -t iggy-go .        # the same, compiling inside the build stage
#
# BINARIES picks where the binaries come from: "build" compiles them in the
# golang stage below (needs the golang base image); "prebuilt" copies the
# static binaries `make docker` leaves in bin/docker/, for hosts that cannot
# pull any base image. The image itself is the same either way.
ARG BINARIES=build
ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/ ./cmd/iggy-server ./cmd/iggy \
 && mkdir -p /out/data \
 && cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt

FROM scratch AS prebuilt
COPY bin/docker/ /out/

FROM ${BINARIES} AS binaries

FROM scratch
COPY --from=binaries /out/iggy-server /out/iggy /usr/local/bin/
# CA roots for an https external_auth service or JWKS endpoint.
COPY --from=binaries /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=binaries --chown=10001:10001 /out/data /data
# Configuration is IGGY_ variables (README "Configuration"): every listener on
# all interfaces, clients told to dial 127.0.0.1 (set
# IGGY_NODE_ADVERTISED_ADDRESS to the host's name when clients are remote).
# A fresh /data needs IGGY_ROOT_USERNAME and IGGY_ROOT_PASSWORD at first start.
ENV IGGY_SYSTEM_PATH=/data \
    IGGY_TCP_ADDRESS=0.0.0.0:8090 \
    IGGY_QUIC_ADDRESS=0.0.0.0:8080 \
    IGGY_HTTP_ADDRESS=0.0.0.0:3000 \
    IGGY_WEBSOCKET_ADDRESS=0.0.0.0:8092 \
    IGGY_NODE_ADVERTISED_ADDRESS=127.0.0.1
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
# tcp, quic (udp), http, websocket
EXPOSE 8090/tcp 8080/udp 3000/tcp 8092/tcp
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/iggy", "--address", "127.0.0.1:8090", "--connect-timeout", "2s", "ping"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/iggy-server"]
