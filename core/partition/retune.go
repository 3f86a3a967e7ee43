package partition

// SetRetention changes the expiry and size cap of a live log, for a topic
// whose options or partition count changed; the next Tick applies them.
func (l *Log) SetRetention(messageExpiryMicros, maxSizeBytes uint64) {
	l.cfg.MessageExpiryMicros = messageExpiryMicros
	l.cfg.MaxSizeBytes = maxSizeBytes
}
