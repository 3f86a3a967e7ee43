package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// DefaultConfigFile is read from the working directory when IGGY_CONFIG_PATH
// is unset (CONF-1).
const DefaultConfigFile = "config.toml"

// configFileBytesMax bounds the config file read into memory.
const configFileBytesMax = 16 << 20

// LoadOptions are the inputs of Load; zero values mean "the process's own".
type LoadOptions struct {
	// Environ is the environment as KEY=VALUE entries; nil = os.Environ().
	Environ []string
	// WorkDir resolves a relative config path; "" = os.Getwd().
	WorkDir string
	// NumCPU bounds sharding.cpu_allocation; 0 = runtime.NumCPU().
	NumCPU int
	// Info receives informational lines (file used, applied variables with
	// secrets masked); nil discards them.
	Info func(line string)
}

// Load runs the configuration pipeline (config.md §2): relocated keys are
// refused, then the embedded defaults, the config file and the IGGY_
// environment are merged (tables key by key, other values replaced whole),
// decoded into Config and validated. Warnings never hold secret values. All
// errors wrap ErrInvalidConfiguration.
func Load(opts LoadOptions) (*Config, []string, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	env := parseEnviron(opts.Environ)
	names := sortedIggyNames(env)

	path, explicit := configPath(env, opts.WorkDir)
	file, warnings, err := readConfigFile(path, explicit)
	if err != nil {
		return nil, nil, err
	}
	if file != nil {
		opts.Info("loaded configuration file " + path)
	}
	if err := checkRelocated(file, names); err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, applyFileAliases(file)...)

	layer := buildEnvLayer(env, names)
	warnings = append(warnings, layer.warnings...)
	unknownWarnings, err := unknownEnvOutcome(layer.unknown, unknownEnvIsFatal)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, unknownWarnings...)

	cfg, err := mergeAndDecode(file, layer)
	if err != nil {
		return nil, nil, err
	}
	validationWarnings, err := validate(cfg, opts.NumCPU)
	if err != nil {
		return nil, nil, err
	}
	unhonoured, err := unhonouredWarnings(cfg.raw)
	if err != nil {
		return nil, nil, err
	}
	validationWarnings = append(validationWarnings, unhonoured...)
	for _, line := range layer.applied {
		opts.Info(line)
	}
	return cfg, append(warnings, validationWarnings...), nil
}

func (o LoadOptions) withDefaults() (LoadOptions, error) {
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("%w: working directory: %w", ErrInvalidConfiguration, err)
		}
		o.WorkDir = wd
	}
	if o.NumCPU <= 0 {
		o.NumCPU = runtime.NumCPU()
	}
	if o.Info == nil {
		o.Info = func(string) {}
	}
	return o, nil
}

// configPath is IGGY_CONFIG_PATH (CONF-2) or ./config.toml (CONF-1),
// relative paths resolved against workDir.
func configPath(env map[string]string, workDir string) (string, bool) {
	path, explicit := env["IGGY_CONFIG_PATH"]
	if !explicit {
		path = DefaultConfigFile
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDir, path)
	}
	return path, explicit
}

// readConfigFile parses the file. A missing default file is a warning (the
// embedded defaults are used alone); a missing IGGY_CONFIG_PATH is an error.
func readConfigFile(path string, explicit bool) (map[string]any, []string, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, []string{fmt.Sprintf("configuration file %s not found; using the built-in defaults", path)}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: configuration file %s (IGGY_CONFIG_PATH): %w", ErrInvalidConfiguration, path, err)
	}
	if info.Size() > configFileBytesMax {
		return nil, nil, fmt.Errorf("%w: configuration file %s is larger than %d bytes", ErrInvalidConfiguration, path, configFileBytesMax)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: reading configuration file %s: %w", ErrInvalidConfiguration, path, err)
	}
	tree, err := toml.Parser().Unmarshal(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: configuration file %s is not valid TOML: %w", ErrInvalidConfiguration, path, err)
	}
	if tree == nil {
		tree = map[string]any{}
	}
	return tree, nil, nil
}

// mergeAndDecode layers defaults, file and environment with koanf, then
// decodes the result.
func mergeAndDecode(file map[string]any, layer envLayer) (*Config, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(defaultTOML), toml.Parser()); err != nil {
		return nil, fmt.Errorf("%w: embedded defaults: %w", ErrInvalidConfiguration, err)
	}
	if file != nil {
		if err := k.Load(treeProvider(file), nil); err != nil {
			return nil, fmt.Errorf("%w: merging the configuration file: %w", ErrInvalidConfiguration, err)
		}
	}
	if err := k.Load(treeProvider(finishTree(layer.tree).(map[string]any)), nil); err != nil {
		return nil, fmt.Errorf("%w: merging the environment: %w", ErrInvalidConfiguration, err)
	}
	var cfg Config
	d := decoder{origins: layer.origins}
	if err := d.decodeStruct("", k.Raw(), reflect.ValueOf(&cfg).Elem(), false); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfiguration, err)
	}
	cfg.raw = k.Raw()
	cfg.TopicDefaults = topicDefaults(cfg.Cluster.DefaultReplicationFactor)
	return &cfg, nil
}

// treeProvider hands an already-parsed key tree to koanf.
type treeProvider map[string]any

func (t treeProvider) ReadBytes() ([]byte, error) {
	return nil, errors.New("treeProvider provides a parsed tree only")
}

func (t treeProvider) Read() (map[string]any, error) {
	return t, nil
}
