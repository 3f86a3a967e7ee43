package partition

// Config is the log's configuration, retention as last set.
func (l *Log) Config() Config { return l.cfg }

// Revision is the incarnation the log recovered or was created or purged as.
func (l *Log) Revision() uint64 { return l.revision }

// SetRetention changes the expiry and size cap of a live log, for a topic
// whose options or partition count changed; the next Tick applies them.
func (l *Log) SetRetention(messageExpiryMicros, maxSizeBytes uint64) {
	l.cfg.MessageExpiryMicros = messageExpiryMicros
	l.cfg.MaxSizeBytes = maxSizeBytes
}
