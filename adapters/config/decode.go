package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// decoder turns the merged key tree into Config. It is strict about types
// (an all-digit env value is a number and does not decode into a string key,
// config.md §7.2), checks integer ranges, and never prints a secret value.
type decoder struct {
	// origins maps a concrete key path to the env variable that set it, so
	// errors can name the variable.
	origins map[string]string
}

// decodeStruct fills dst (a struct value) from the table src. Keys not in the
// struct are ignored unless strict (config.md §2 step 8).
func (d *decoder) decodeStruct(path string, src map[string]any, dst reflect.Value, strict bool) error {
	t := dst.Type()
	known := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := f.Tag.Get("koanf")
		if key == "" || key == "-" {
			continue
		}
		known = append(known, key)
		opts := parseTagOptions(f.Tag.Get("conf"))
		childPath := joinPath(path, key)
		v, present := src[key]
		if !present {
			if opts.optional {
				continue
			}
			return fmt.Errorf("%s: missing required key", childPath)
		}
		opts.strict = opts.strict || strict
		if err := d.decodeValue(childPath, v, dst.Field(i), opts); err != nil {
			return err
		}
	}
	if strict {
		return unknownKeysError(path, src, known)
	}
	return nil
}

func unknownKeysError(path string, src map[string]any, known []string) error {
	var unknown []string
	for key := range src {
		if !slices.Contains(known, key) {
			unknown = append(unknown, joinPath(path, key))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unknown key(s) %s (the [cluster] tables accept only known keys)", strings.Join(unknown, ", "))
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decodeValue decodes one value into dst, wrapping errors with the key path
// and, when the environment set it, the variable name.
func (d *decoder) decodeValue(path string, v any, dst reflect.Value, opts tagOptions) error {
	if err := d.decodeInto(path, v, dst, opts); err != nil {
		if name, ok := d.origins[path]; ok {
			return fmt.Errorf("%s (from %s): %w", path, name, err)
		}
		if strings.HasPrefix(err.Error(), path) {
			return err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func (d *decoder) decodeInto(path string, v any, dst reflect.Value, opts tagOptions) error {
	if dec, ok := dst.Addr().Interface().(configDecoder); ok {
		return dec.decodeConfigValue(v)
	}
	switch {
	case dst.Kind() == reflect.Pointer:
		elem := reflect.New(dst.Type().Elem())
		if err := d.decodeInto(path, v, elem.Elem(), opts); err != nil {
			return err
		}
		dst.Set(elem)
		return nil
	case dst.Type() == durationType:
		return decodeDuration(v, dst, opts)
	case opts.size:
		return decodeSize(v, dst, opts)
	}
	switch dst.Kind() {
	case reflect.Struct:
		table, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("expected a table, got %s", describe(v, opts))
		}
		return d.decodeStruct(path, table, dst, opts.strict)
	case reflect.Slice:
		return d.decodeSlice(path, v, dst, opts)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("expected true or false, got %s", describe(v, opts))
		}
		dst.SetBool(b)
		return nil
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("expected a string, got %s", describe(v, opts))
		}
		dst.SetString(s)
		return nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := unsignedValue(v, dst.Type().Bits(), opts)
		if err != nil {
			return err
		}
		dst.SetUint(n)
		return nil
	}
	panic(fmt.Sprintf("config: no decoder for %s at %s", dst.Type(), path))
}

func (d *decoder) decodeSlice(path string, v any, dst reflect.Value, opts tagOptions) error {
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expected a list (in the environment: [a, b]), got %s", describe(v, opts))
	}
	out := reflect.MakeSlice(dst.Type(), len(items), len(items))
	elemOpts := tagOptions{secret: opts.secret, strict: opts.strict}
	for i, item := range items {
		itemPath := fmt.Sprintf("%s[%d]", path, i)
		if err := d.decodeValue(itemPath, item, out.Index(i), elemOpts); err != nil {
			return err
		}
	}
	dst.Set(out)
	return nil
}

func decodeDuration(v any, dst reflect.Value, opts tagOptions) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a duration with a unit such as \"0s\" or \"5 s\", got %s", describe(v, opts))
	}
	dur, err := ParseDuration(s)
	if err != nil {
		return err
	}
	if opts.tick {
		dur = quantizeTick(dur)
	}
	dst.Set(reflect.ValueOf(dur).Convert(dst.Type()))
	return nil
}

func decodeSize(v any, dst reflect.Value, opts tagOptions) error {
	var n uint64
	var err error
	switch x := v.(type) {
	case string:
		if opts.unlimited {
			n, err = ParseSizeOrUnlimited(x)
		} else {
			n, err = ParseSize(x)
		}
	case int64, uint64:
		n, err = unsignedValue(v, 64, opts)
	default:
		err = fmt.Errorf("expected a size such as \"64 MiB\" or an integer of bytes, got %s", describe(v, opts))
	}
	if err != nil {
		return err
	}
	dst.SetUint(n)
	return nil
}

// unsignedValue reads an integer that must fit the given bit width.
func unsignedValue(v any, bits int, opts tagOptions) (uint64, error) {
	var n uint64
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("must not be negative, got %s", describe(v, opts))
		}
		n = uint64(x)
	case uint64:
		n = x
	default:
		return 0, fmt.Errorf("expected an integer, got %s", describe(v, opts))
	}
	if bits < 64 && n > math.MaxUint64>>(64-bits) {
		return 0, fmt.Errorf("%s does not fit %d bits", describe(v, opts), bits)
	}
	return n, nil
}

// describe names a value's type, and its value unless the key is secret.
func describe(v any, opts tagOptions) string {
	if opts.secret {
		return describeKind(v) + " (value hidden)"
	}
	return describeValue(v)
}

func describeKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, uint64:
		return "an integer"
	case float64:
		return "a float"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	}
	return fmt.Sprintf("a %T", v)
}

// describeValue names a non-secret value's type and value.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool, int64, uint64, float64:
		return fmt.Sprintf("%s %v", describeKind(v), x)
	}
	return describeKind(v)
}
