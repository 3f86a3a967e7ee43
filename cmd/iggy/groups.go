package main

import (
	"github.com/spf13/cobra"

	"github.com/iggygo/iggy/wire"
)

// offsetArgs are CONSUMER STREAM TOPIC PARTITION; --group makes CONSUMER a group.
type offsetArgs struct{ group bool }

func (o offsetArgs) parse(args []string) (wire.Consumer, wire.Identifier, wire.Identifier, uint32, error) {
	p, err := u32Arg("partition", args[3])
	if err != nil {
		return wire.Consumer{}, wire.Identifier{}, wire.Identifier{}, 0, err
	}
	kind := wire.ConsumerKindConsumer
	if o.group {
		kind = wire.ConsumerKindGroup
	}
	return wire.Consumer{Kind: kind, ID: id(args[0])}, id(args[1]), id(args[2]), p, nil
}

func (a *app) consumerOffsetCommand() *cobra.Command {
	var o offsetArgs
	cmd := &cobra.Command{Use: "consumer-offset", Aliases: []string{"o"}, Short: "Read, store and delete a consumer's offset on a partition",
		Example: "  iggy consumer-offset get 1 orders events 1\n  iggy consumer-offset set 1 orders events 1 41"}
	cmd.PersistentFlags().BoolVar(&o.group, "group", false, "CONSUMER names a consumer group")
	cmd.AddCommand(&cobra.Command{
		Use: "get CONSUMER STREAM TOPIC PARTITION", Short: "Show the stored offset", Args: cobra.ExactArgs(4),
		Example: "  iggy consumer-offset get 1 orders events 1\n  iggy consumer-offset get billing orders events 1 --group",
		RunE: a.withClient(func(c api, args []string) error {
			consumer, stream, topic, p, err := o.parse(args)
			if err != nil {
				return err
			}
			info, found, err := c.GetOffset(consumer, stream, topic, p)
			if err := notFound(found, err, "consumer offset of", args[0]); err != nil {
				return err
			}
			v := map[string]any{"partition_id": info.PartitionID, "current_offset": info.CurrentOffset, "stored_offset": info.StoredOffset}
			return a.show(v, keyValues("partition", info.PartitionID, "current offset", info.CurrentOffset, "stored offset", info.StoredOffset))
		}),
	}, &cobra.Command{
		Use: "set CONSUMER STREAM TOPIC PARTITION OFFSET", Short: "Store an offset", Args: cobra.ExactArgs(5),
		Example: "  iggy consumer-offset set 1 orders events 1 41",
		RunE: a.withClient(func(c api, args []string) error {
			consumer, stream, topic, p, err := o.parse(args)
			if err != nil {
				return err
			}
			off, err := u64Arg("offset", args[4])
			if err != nil {
				return err
			}
			if err := c.StoreOffset(consumer, stream, topic, p, off); err != nil {
				return err
			}
			return a.done("offset stored", map[string]any{"offset": off})
		}),
	}, &cobra.Command{
		Use: "delete CONSUMER STREAM TOPIC PARTITION", Short: "Delete the stored offset", Args: cobra.ExactArgs(4),
		Example: "  iggy consumer-offset delete 1 orders events 1",
		RunE: a.withClient(func(c api, args []string) error {
			consumer, stream, topic, p, err := o.parse(args)
			if err != nil {
				return err
			}
			if err := c.DeleteOffset(consumer, stream, topic, p); err != nil {
				return err
			}
			return a.done("offset deleted", nil)
		}),
	})
	return cmd
}

type groupView struct {
	ID              uint32       `json:"id"`
	Name            string       `json:"name"`
	PartitionsCount uint32       `json:"partitions_count"`
	MembersCount    uint32       `json:"members_count"`
	Members         []memberView `json:"members,omitempty"`
}

type memberView struct {
	ID         uint32   `json:"id"`
	Partitions []uint32 `json:"partitions"`
}

var groupHeaders = []string{"ID", "NAME", "PARTITIONS", "MEMBERS"}

func viewGroup(g wire.ConsumerGroupResponse, t *table) groupView {
	t.add(g.ID, g.Name, g.PartitionsCount, g.MembersCount)
	return groupView{ID: g.ID, Name: g.Name, PartitionsCount: g.PartitionsCount, MembersCount: g.MembersCount}
}

func (a *app) consumerGroupCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "consumer-group", Aliases: []string{"g"}, Short: "Create, list, show, delete, join and leave consumer groups",
		Example: "  iggy consumer-group create orders events billing\n  iggy consumer-group list orders events"}
	cmd.AddCommand(&cobra.Command{
		Use: "create STREAM TOPIC NAME", Short: "Create a consumer group", Args: cobra.ExactArgs(3),
		Example: "  iggy consumer-group create orders events billing",
		RunE: a.withClient(func(c api, args []string) error {
			g, err := c.CreateConsumerGroup(id(args[0]), id(args[1]), args[2])
			if err != nil {
				return err
			}
			t := table{headers: groupHeaders}
			return a.show(viewGroup(g, &t), t)
		}),
	}, &cobra.Command{
		Use: "list STREAM TOPIC", Short: "List a topic's consumer groups", Args: cobra.ExactArgs(2),
		Example: "  iggy consumer-group list orders events",
		RunE: a.withClient(func(c api, args []string) error {
			gs, err := c.GetConsumerGroups(id(args[0]), id(args[1]))
			if err != nil {
				return err
			}
			views, t := viewList(gs, groupHeaders, viewGroup)
			return a.show(views, t)
		}),
	}, &cobra.Command{
		Use: "get STREAM TOPIC GROUP", Short: "Show a consumer group and its members", Args: cobra.ExactArgs(3),
		Example: "  iggy consumer-group get orders events billing",
		RunE: a.withClient(func(c api, args []string) error {
			d, found, err := c.GetConsumerGroup(id(args[0]), id(args[1]), id(args[2]))
			if err := notFound(found, err, "consumer group", args[2]); err != nil {
				return err
			}
			t := table{headers: []string{"MEMBER", "PARTITIONS"}}
			v := viewGroup(d.Group, &table{})
			for _, m := range d.Members {
				v.Members = append(v.Members, memberView{m.ID, m.Partitions})
				t.add(m.ID, m.Partitions)
			}
			return a.show(v, t)
		}),
	}, a.groupCall("delete", "Delete a consumer group", "consumer group deleted", api.DeleteConsumerGroup),
		a.groupCall("join", "Join a consumer group for this connection's session", "joined", api.JoinConsumerGroup),
		a.groupCall("leave", "Leave a consumer group", "left", api.LeaveConsumerGroup))
	return cmd
}

// groupCall is a STREAM TOPIC GROUP command with no result.
func (a *app) groupCall(verb, short, message string, call func(api, wire.Identifier, wire.Identifier, wire.Identifier) error) *cobra.Command {
	return &cobra.Command{
		Use: verb + " STREAM TOPIC GROUP", Short: short, Args: cobra.ExactArgs(3),
		Example: "  iggy consumer-group " + verb + " orders events billing",
		RunE: a.withClient(func(c api, args []string) error {
			if err := call(c, id(args[0]), id(args[1]), id(args[2])); err != nil {
				return err
			}
			return a.done(message, nil)
		}),
	}
}
