package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/client"
	"github.com/iggygo/iggy/wire"
)

// optionsView shows an option block as key → text.
func optionsView(blocks ...wire.Options) map[string]string {
	out := map[string]string{}
	for _, b := range blocks {
		for _, e := range b {
			out[e.Key] = wire.OptionText(e)
		}
	}
	return out
}

type streamView struct {
	ID            uint32            `json:"id"`
	Name          string            `json:"name"`
	CreatedAt     string            `json:"created_at"`
	TopicsCount   uint32            `json:"topics_count"`
	SizeBytes     uint64            `json:"size_bytes"`
	MessagesCount uint64            `json:"messages_count"`
	Options       map[string]string `json:"options"`
	Topics        []topicView       `json:"topics,omitempty"`
}

// viewStream is s's view, and its row in t.
func viewStream(s wire.StreamResponse, t *table) streamView {
	v := streamView{ID: s.ID, Name: s.Name, CreatedAt: timeText(s.CreatedAtMicros), TopicsCount: s.TopicsCount,
		SizeBytes: s.SizeBytes, MessagesCount: s.MessagesCount, Options: optionsView(s.Options)}
	t.add(v.ID, v.Name, v.TopicsCount, v.MessagesCount, v.SizeBytes, v.CreatedAt)
	return v
}

var streamHeaders = []string{"ID", "NAME", "TOPICS", "MESSAGES", "SIZE BYTES", "CREATED"}

// viewList is the views of items, and a table of one row each.
func viewList[T, V any](items []T, headers []string, view func(T, *table) V) ([]V, table) {
	views := []V{}
	t := table{headers: headers}
	for _, it := range items {
		views = append(views, view(it, &t))
	}
	return views, t
}

func (a *app) streamCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "stream", Aliases: []string{"s"}, Short: "Create, list, show, update and delete streams", Example: "  iggy stream create orders\n  iggy stream list"}
	cmd.AddCommand(&cobra.Command{
		Use: "create NAME", Short: "Create a stream", Example: "  iggy stream create orders", Args: cobra.ExactArgs(1),
		RunE: a.withClient(func(c api, args []string) error {
			s, err := c.CreateStream(args[0])
			if err != nil {
				return err
			}
			t := table{headers: streamHeaders}
			return a.show(viewStream(s, &t), t)
		}),
	}, &cobra.Command{
		Use: "list", Short: "List streams", Example: "  iggy stream list\n  iggy -o json stream list", Args: cobra.NoArgs,
		RunE: a.withClient(func(c api, _ []string) error {
			ss, err := c.GetStreams()
			if err != nil {
				return err
			}
			views, t := viewList(ss, streamHeaders, viewStream)
			return a.show(views, t)
		}),
	}, &cobra.Command{
		Use: "get STREAM", Short: "Show a stream and its topics", Example: "  iggy stream get orders\n  iggy stream get 1", Args: cobra.ExactArgs(1),
		RunE: a.withClient(func(c api, args []string) error {
			d, found, err := c.GetStream(id(args[0]))
			if err := notFound(found, err, "stream", args[0]); err != nil {
				return err
			}
			v := viewStream(d.Stream, &table{})
			var t table
			v.Topics, t = viewList(d.Topics, topicHeaders, viewTopic)
			return a.show(v, t)
		}),
	}, a.updateCommand("stream", "STREAM", "  iggy stream update orders --set name=orders-v2", 1, func(args []string) wire.UpdateResourceRequest {
		return wire.UpdateResourceRequest{Scope: wire.ScopeStream, Stream: id(args[0])}
	}), a.deleteCommand("stream", "STREAM", "  iggy stream delete orders", 1, func(c api, args []string) error {
		return c.DeleteStream(id(args[0]))
	}))
	return cmd
}

// notFound turns a lookup that found nothing into ResourceNotFound.
func notFound(found bool, err error, what, name string) error {
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s %s: %w", what, name, &client.Error{Code: wire.ResourceNotFound})
	}
	return nil
}

// withClient logs in, then runs f.
func (a *app) withClient(f func(c api, args []string) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		c, err := a.connect()
		if err != nil {
			return err
		}
		return f(c, args)
	}
}

// updateCommand is `SCOPE update REF... [--set k=v] [--reset k]` through
// UpdateResource (RES-5): target names the resource from the arguments.
func (a *app) updateCommand(scope, refs, example string, nargs int, target func([]string) wire.UpdateResourceRequest) *cobra.Command {
	var o optionFlags
	cmd := &cobra.Command{
		Use: "update " + refs, Short: "Set or reset options of a " + scope + " (name included)", Example: example,
		Args: cobra.ExactArgs(nargs),
		RunE: a.withClient(func(c api, args []string) error {
			q := target(args)
			set, err := o.options()
			if err != nil {
				return err
			}
			if len(set) == 0 && len(o.reset) == 0 {
				return usageErrorf("update: nothing to change; pass --set key=value or --reset key")
			}
			q.Set, q.Reset = set, o.reset
			if err := c.UpdateResource(q); err != nil {
				return err
			}
			return a.done(scope+" updated", nil)
		}),
	}
	o.register(cmd, true)
	return cmd
}

// deleteCommand is `SCOPE delete REF...`.
func (a *app) deleteCommand(scope, refs, example string, nargs int, del func(api, []string) error) *cobra.Command {
	return &cobra.Command{
		Use: "delete " + refs, Short: "Delete a " + scope, Example: example, Args: cobra.ExactArgs(nargs),
		RunE: a.withClient(func(c api, args []string) error {
			if err := del(c, args); err != nil {
				return err
			}
			return a.done(scope+" deleted", nil)
		}),
	}
}

type topicView struct {
	ID              uint32            `json:"id"`
	Name            string            `json:"name"`
	CreatedAt       string            `json:"created_at"`
	PartitionsCount uint32            `json:"partitions_count"`
	SizeBytes       uint64            `json:"size_bytes"`
	MessagesCount   uint64            `json:"messages_count"`
	Options         map[string]string `json:"options"`
	Partitions      []partitionView   `json:"partitions,omitempty"`
}

// viewTopic is h's view, and its row in t.
func viewTopic(h wire.TopicHeader, t *table) topicView {
	v := topicView{ID: h.ID, Name: h.Name, CreatedAt: timeText(h.CreatedAtMicros), PartitionsCount: h.PartitionsCount,
		SizeBytes: h.SizeBytes, MessagesCount: h.MessagesCount, Options: optionsView(h.Derived, h.Explicit)}
	t.add(v.ID, v.Name, v.PartitionsCount, v.MessagesCount, v.SizeBytes,
		v.Options[wire.OptMessageExpiry], v.Options[wire.OptMaxTopicSize], v.CreatedAt)
	return v
}

var topicHeaders = []string{"ID", "NAME", "PARTITIONS", "MESSAGES", "SIZE BYTES", "EXPIRY", "MAX SIZE", "CREATED"}

type partitionView struct {
	ID            uint32 `json:"id"`
	CreatedAt     string `json:"created_at"`
	SegmentsCount uint32 `json:"segments_count"`
	CurrentOffset uint64 `json:"current_offset"`
	SizeBytes     uint64 `json:"size_bytes"`
	MessagesCount uint64 `json:"messages_count"`
}

var partitionHeaders = []string{"ID", "SEGMENTS", "CURRENT OFFSET", "MESSAGES", "SIZE BYTES", "CREATED"}

// viewPartition is p's view, and its row in t.
func viewPartition(p wire.PartitionResponse, t *table) partitionView {
	v := partitionView{p.ID, timeText(p.CreatedAtMicros), p.SegmentsCount, p.CurrentOffset, p.SizeBytes, p.MessagesCount}
	t.add(v.ID, v.SegmentsCount, v.CurrentOffset, v.MessagesCount, v.SizeBytes, v.CreatedAt)
	return v
}

func (a *app) topicCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "topic", Aliases: []string{"t"}, Short: "Create, list, show, update and delete topics", Example: "  iggy topic create orders events 3\n  iggy topic list orders"}
	var create optionFlags
	createCmd := &cobra.Command{
		Use: "create STREAM NAME PARTITIONS", Short: "Create a topic",
		Example: "  iggy topic create orders events 3\n  iggy topic create orders audit 1 --set message_expiry=\"7 days\" --set max_topic_size=\"1 GiB\"",
		Args:    cobra.ExactArgs(3),
		RunE: a.withClient(func(c api, args []string) error {
			n, err := u32Arg("partitions", args[2])
			if err != nil {
				return err
			}
			opts, err := create.options()
			if err != nil {
				return err
			}
			d, err := c.CreateTopic(id(args[0]), args[1], n, opts)
			if err != nil {
				return err
			}
			return a.showTopic(d)
		}),
	}
	create.register(createCmd, false)
	cmd.AddCommand(createCmd, &cobra.Command{
		Use: "list STREAM", Short: "List a stream's topics", Example: "  iggy topic list orders", Args: cobra.ExactArgs(1),
		RunE: a.withClient(func(c api, args []string) error {
			hs, err := c.GetTopics(id(args[0]))
			if err != nil {
				return err
			}
			views, t := viewList(hs, topicHeaders, viewTopic)
			return a.show(views, t)
		}),
	}, &cobra.Command{
		Use: "get STREAM TOPIC", Short: "Show a topic, its options and partitions", Example: "  iggy topic get orders events", Args: cobra.ExactArgs(2),
		RunE: a.withClient(func(c api, args []string) error {
			d, found, err := c.GetTopic(id(args[0]), id(args[1]))
			if err := notFound(found, err, "topic", args[1]); err != nil {
				return err
			}
			return a.showTopic(d)
		}),
	}, a.updateCommand("topic", "STREAM TOPIC", "  iggy topic update orders events --set message_expiry=\"1 day\" --reset max_topic_size", 2,
		func(args []string) wire.UpdateResourceRequest {
			return wire.UpdateResourceRequest{Scope: wire.ScopeTopic, Stream: id(args[0]), Topic: id(args[1])}
		}), a.deleteCommand("topic", "STREAM TOPIC", "  iggy topic delete orders events", 2, func(c api, args []string) error {
		return c.DeleteTopic(id(args[0]), id(args[1]))
	}))
	return cmd
}

func (a *app) showTopic(d wire.TopicDetails) error {
	head := table{headers: topicHeaders}
	v := viewTopic(d.Topic, &head)
	var t table
	v.Partitions, t = viewList(d.Partitions, partitionHeaders, viewPartition)
	if a.flags.output == outputTable {
		if err := a.show(v, head); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
	}
	return a.show(v, t)
}

func (a *app) partitionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "partition",
		Aliases: []string{"p"},
		Short:   "Add, list and remove a topic's partitions",
		Long: "Partitions are added and removed at the end of a topic (under partition_resize_policy = mutable).\n" +
			"A partition has no options of its own, so there is no `partition update`: see `topic update`.",
		Example: "  iggy partition create orders events 2\n  iggy partition list orders events",
	}
	cmd.AddCommand(&cobra.Command{
		Use: "create STREAM TOPIC COUNT", Short: "Add COUNT partitions to a topic", Example: "  iggy partition create orders events 2", Args: cobra.ExactArgs(3),
		RunE: a.withClient(func(c api, args []string) error {
			n, err := u32Arg("count", args[2])
			if err != nil {
				return err
			}
			if err := c.CreatePartitions(id(args[0]), id(args[1]), n); err != nil {
				return err
			}
			return a.done(fmt.Sprintf("%d partitions added", n), map[string]any{"count": n})
		}),
	}, &cobra.Command{
		Use: "list STREAM TOPIC", Short: "List a topic's partitions", Example: "  iggy partition list orders events", Args: cobra.ExactArgs(2),
		RunE: a.withClient(func(c api, args []string) error {
			d, found, err := c.GetTopic(id(args[0]), id(args[1]))
			if err := notFound(found, err, "topic", args[1]); err != nil {
				return err
			}
			views, t := viewList(d.Partitions, partitionHeaders, viewPartition)
			return a.show(views, t)
		}),
	}, &cobra.Command{
		Use: "get STREAM TOPIC PARTITION", Short: "Show one partition", Example: "  iggy partition get orders events 1", Args: cobra.ExactArgs(3),
		RunE: a.withClient(func(c api, args []string) error {
			pid, err := u32Arg("partition", args[2])
			if err != nil {
				return err
			}
			d, found, err := c.GetTopic(id(args[0]), id(args[1]))
			if err := notFound(found, err, "topic", args[1]); err != nil {
				return err
			}
			for _, p := range d.Partitions {
				if p.ID == pid {
					t := table{headers: partitionHeaders}
					return a.show(viewPartition(p, &t), t)
				}
			}
			return notFound(false, nil, "partition", args[2])
		}),
	}, &cobra.Command{
		Use: "delete STREAM TOPIC COUNT", Short: "Remove the last COUNT partitions of a topic", Example: "  iggy partition delete orders events 1", Args: cobra.ExactArgs(3),
		RunE: a.withClient(func(c api, args []string) error {
			n, err := u32Arg("count", args[2])
			if err != nil {
				return err
			}
			if err := c.DeletePartitions(id(args[0]), id(args[1]), n); err != nil {
				return err
			}
			return a.done(fmt.Sprintf("%d partitions deleted", n), map[string]any{"count": n})
		}),
	})
	return cmd
}

func (a *app) segmentsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "segments", Aliases: []string{"segment", "seg"}, Short: "Manage a partition's segments", Example: "  iggy segments delete orders events 1 2"}
	cmd.AddCommand(&cobra.Command{
		Use: "delete STREAM TOPIC PARTITION COUNT", Short: "Delete the oldest COUNT segments of a partition",
		Example: "  iggy segments delete orders events 1 2", Args: cobra.ExactArgs(4),
		RunE: a.withClient(func(c api, args []string) error {
			p, err := u32Arg("partition", args[2])
			if err != nil {
				return err
			}
			n, err := u32Arg("count", args[3])
			if err != nil {
				return err
			}
			if err := c.DeleteSegments(id(args[0]), id(args[1]), p, n); err != nil {
				return err
			}
			return a.done(fmt.Sprintf("%d segments deleted", n), map[string]any{"count": n})
		}),
	})
	return cmd
}
