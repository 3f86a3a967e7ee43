package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/adapters/httpapi"
	"github.com/iggygo/iggy/adapters/server"
	"github.com/iggygo/iggy/adapters/transport"
)

// httpListener is the HTTP REST part of listeners (config.md [http]): a
// client of the node through the hub, like every other transport.
type httpListener struct{ http *httpapi.Server }

func (l *httpListener) startHTTP(cfg *config.Config, self *config.ClusterNode, hub *transport.Hub, log *slog.Logger,
	counters *server.Counters) error {
	if !cfg.HTTP.Enabled {
		return nil
	}
	httpCfg := cfg.HTTP
	httpCfg.JWT = clusterBearerKey(httpCfg.JWT, cfg.Cluster)
	s, err := httpapi.New(httpapi.Options{HTTP: httpCfg, Log: log, DataDir: cfg.System.Path, Grace: cfg.MessageBus.HandshakeGrace,
		DiskWriteFailures: counters.DiskWriteFailures, Cluster: httpCluster(cfg, self)}, hub)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	if err := s.Listen(cfg.HTTP.Address); err != nil {
		return err
	}
	l.http = s
	go s.Serve()
	fmt.Printf("http listening on %s\n", s.Addr())
	log.Info(fmt.Sprintf("http listening on %s", s.Addr()))
	return nil
}

func (l *httpListener) closeHTTP() {
	if l.http != nil {
		_ = l.http.Close()
	}
}

// httpCluster is this node's place in its replica set for HTTP forwarding
// and relays: the other nodes' HTTP listeners at their roster ip (the
// forwarding target, config.md) and the relay key; nil outside a set.
func httpCluster(cfg *config.Config, self *config.ClusterNode) *httpapi.Cluster {
	if self == nil {
		return nil
	}
	scheme := "http://"
	if cfg.HTTP.TLS.Enabled {
		scheme = "https://"
	}
	c := &httpapi.Cluster{Self: self.ReplicaID, SelfName: self.Name, Peers: map[uint8]string{},
		Key: httpapi.RelayKey(cfg.HTTP.JWT.EncodingSecret, cfg.HTTP.JWT.DecodingSecret, cfg.Cluster.Auth.SharedSecret)}
	for _, n := range cfg.Cluster.Nodes {
		if n.ReplicaID != self.ReplicaID && n.Ports.HTTP != nil {
			c.Peers[n.ReplicaID] = scheme + net.JoinHostPort(n.IP, strconv.Itoa(int(*n.Ports.HTTP)))
		}
	}
	return c
}

// clusterBearerKey gives a replica set with cluster.auth and no http.jwt
// secret a bearer key derived from the shared secret (http.md 3.2), so a
// token issued by one node is accepted by every node and partition relays
// carry it; without either, each node draws a random secret per boot.
func clusterBearerKey(jwt config.JWT, cluster config.Cluster) config.JWT {
	if !cluster.Enabled || !cluster.Auth.Enabled || cluster.Auth.SharedSecret == "" ||
		jwt.EncodingSecret != "" || jwt.DecodingSecret != "" {
		return jwt
	}
	mac := hmac.New(sha256.New, []byte(cluster.Auth.SharedSecret))
	mac.Write([]byte(bearerKeyContext))
	jwt.EncodingSecret, jwt.UseBase64Secret = hex.EncodeToString(mac.Sum(nil)), false
	return jwt
}

// bearerKeyContext separates the bearer key from the other keys derived
// from cluster.auth.shared_secret (the relay key, the replica links' MACs).
const bearerKeyContext = "iggy-go http bearer key v1"
