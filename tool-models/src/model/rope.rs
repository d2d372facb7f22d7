//! Rotary position embeddings as a model's `config.json` describes them, in
//! either of transformers' two styles, and the frequencies they give.
//!
//! Configs written before transformers 5 say `rope_theta`, `rope_scaling`
//! and `partial_rotary_factor` at the top level (Gemma 3 adds
//! `rope_local_base_freq`); transformers 5 writes one `rope_parameters`
//! object, or one per layer type (`full_attention`, `sliding_attention`).
//! Both are read here as transformers reads them, with its precedence, and
//! every rotary setting this crate does not compute is refused by name:
//! a model run with the wrong frequencies writes plausible nonsense.

use super::json::kind;
use super::ModelError;
use serde_json::{Map, Value};
use std::f32::consts::PI;
use std::path::Path;

/// How one kind of layer rotates its queries and keys.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rope {
    /// The base of the frequencies (`rope_theta`).
    pub theta: f64,
    /// The share of each head that rotates, from its start (Phi-4-mini:
    /// 0.75); the rest passes through.
    pub partial: f64,
    /// How the frequencies are stretched for long contexts.
    pub scaling: RopeScaling,
}

/// The rotary scalings this crate computes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RopeScaling {
    /// transformers' `default`.
    None,
    /// Every frequency divided by `factor` (Gemma 3's global layers).
    Linear { factor: f64 },
    /// Llama 3.1's: low frequencies divided by `factor`, high ones kept,
    /// those between blended.
    Llama3 {
        factor: f64,
        low_freq_factor: f64,
        high_freq_factor: f64,
        original: f64,
    },
    /// Phi-3's and Phi-4's LongRoPE: a divisor per frequency, `short` while
    /// a pass stays within `original` positions and `long` once it reaches
    /// past them, and cosines and sines multiplied by `attention_factor`.
    LongRope {
        short: Vec<f64>,
        long: Vec<f64>,
        original: usize,
        attention_factor: f64,
    },
}

/// The rotary settings of a model: its (global) layers', and its
/// sliding-window layers' where they differ (Gemma 3).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RopeLayers {
    pub full: Rope,
    pub sliding: Option<Rope>,
}

/// What an architecture's config class assumes where the file is silent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RopeDefaults {
    /// `rope_theta` when unsaid.
    pub theta: f64,
    /// Gemma 3: its local layers' base (`rope_local_base_freq`) when unsaid;
    /// `None` for architectures without such layers.
    pub local_theta: Option<f64>,
    /// Whether the architecture rotates part of each head (Phi-3's
    /// attention does; the others' fail in transformers itself).
    pub partial: bool,
}

/// The layer types a `rope_parameters` object may be keyed by.
const LAYER_TYPES: [&str; 2] = ["full_attention", "sliding_attention"];

/// Reads the rotary settings of `cfg`, the `config.json` at `path`.
pub(crate) fn read_rope(
    cfg: &Map<String, Value>,
    defaults: RopeDefaults,
    path: &Path,
) -> Result<RopeLayers, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    let object = |key: &str| -> Result<Option<&Map<String, Value>>, ModelError> {
        match cfg.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(invalid(format!(
                "expected \"{key}\" to be an object or null, found {}",
                kind(other)
            ))),
        }
    };
    let number = |key: &str| -> Result<Option<f64>, ModelError> {
        match cfg.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| invalid(format!("expected \"{key}\" to be a number, found {v}"))),
        }
    };
    let scaling = object("rope_scaling")?;
    let parameters = object("rope_parameters")?;
    let theta = number("rope_theta")?.unwrap_or(defaults.theta);
    let partial = number("partial_rotary_factor")?;
    let context = cfg.get("max_position_embeddings").and_then(Value::as_u64);
    // Phi-3 keeps the pretraining length at the top level, and transformers
    // prefers it there.
    let top_original = cfg
        .get("original_max_position_embeddings")
        .and_then(Value::as_u64);
    let nested = parameters.is_some_and(|p| p.keys().any(|k| LAYER_TYPES.contains(&k.as_str())));
    let read = |dict: Option<&Map<String, Value>>, name: String, theta: f64| {
        let settings = Settings {
            theta,
            partial,
            context,
            top_original,
            partial_allowed: defaults.partial,
        };
        rope(dict, &name, settings, path)
    };
    if nested {
        let parameters = parameters.into_iter().flatten();
        if let Some((key, _)) = parameters
            .clone()
            .find(|(k, _)| !LAYER_TYPES.contains(&k.as_str()))
        {
            return Err(invalid(format!(
                "\"rope_parameters\" is keyed by layer type, but also holds \"{key}\", which is not one ({})",
                LAYER_TYPES.join(", ")
            )));
        }
        let layer = |t: &str| -> Result<Option<&Map<String, Value>>, ModelError> {
            match cfg["rope_parameters"].get(t) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Object(m)) => Ok(Some(m)),
                Some(other) => Err(invalid(format!(
                    "expected \"rope_parameters.{t}\" to be an object, found {}",
                    kind(other)
                ))),
            }
        };
        // transformers (Gemma 3): a `rope_scaling` of the old style still
        // updates the global layers' entry.
        let mut full = layer("full_attention")?.cloned().unwrap_or_default();
        if let Some(scaling) = scaling {
            full.extend(scaling.clone());
        }
        let full = read(Some(&full), "rope_parameters.full_attention".into(), theta)?;
        let sliding = match (layer("sliding_attention")?, defaults.local_theta) {
            (None, None) => None,
            (dict, local) => {
                let local = number("rope_local_base_freq")?.or(local).unwrap_or(theta);
                Some(read(
                    dict,
                    "rope_parameters.sliding_attention".into(),
                    local,
                )?)
            }
        };
        return Ok(RopeLayers { full, sliding });
    }
    // The old style's `rope_scaling` wins over a flat `rope_parameters`.
    let (dict, name) = match (scaling, parameters) {
        (Some(s), _) => (Some(s), "rope_scaling"),
        (None, Some(p)) => (Some(p), "rope_parameters"),
        (None, None) => (None, "rope_scaling"),
    };
    let full = read(dict, name.into(), theta)?;
    let sliding = match defaults.local_theta {
        // Gemma 3's old style: local layers at their own base, unscaled.
        Some(local) => {
            let local = number("rope_local_base_freq")?.unwrap_or(local);
            Some(read(None, "rope_local_base_freq".into(), local)?)
        }
        None => None,
    };
    Ok(RopeLayers { full, sliding })
}

/// What the top level of a config says about every rotary entry.
#[derive(Clone, Copy)]
struct Settings {
    theta: f64,
    partial: Option<f64>,
    context: Option<u64>,
    top_original: Option<u64>,
    partial_allowed: bool,
}

/// One rotary entry (`dict`, named `name` in messages).
fn rope(
    dict: Option<&Map<String, Value>>,
    name: &str,
    top: Settings,
    path: &Path,
) -> Result<Rope, ModelError> {
    let invalid = |reason: String| ModelError::invalid(path, reason);
    let empty = Map::new();
    let dict = dict.unwrap_or(&empty);
    let number = |key: &str| -> Result<Option<f64>, ModelError> {
        match dict.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .map(Some)
                .ok_or_else(|| {
                    invalid(format!(
                        "expected \"{name}.{key}\" to be a number, found {v}"
                    ))
                }),
        }
    };
    let required = |key: &str| -> Result<f64, ModelError> {
        number(key)?.ok_or_else(|| {
            invalid(format!(
                "missing \"{name}.{key}\", which its rope type needs"
            ))
        })
    };
    let factors = |key: &str| -> Result<Vec<f64>, ModelError> {
        match dict.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_f64()
                        .filter(|x| x.is_finite() && *x > 0.0)
                        .ok_or_else(|| {
                            invalid(format!(
                                "expected \"{name}.{key}\" to hold positive numbers, found {v}"
                            ))
                        })
                })
                .collect(),
            Some(other) => Err(invalid(format!(
                "expected \"{name}.{key}\" to be a list of numbers, found {}",
                kind(other)
            ))),
            None => Err(invalid(format!(
                "missing \"{name}.{key}\", which LongRoPE needs"
            ))),
        }
    };
    let ty = match dict.get("rope_type").or_else(|| dict.get("type")) {
        None | Some(Value::Null) => "default",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(invalid(format!(
                "expected \"{name}.rope_type\" to be a string, found {other}"
            )))
        }
    };
    let own: &[&str] = match ty {
        "default" => &[],
        "linear" => &["factor"],
        "llama3" => &[
            "factor",
            "low_freq_factor",
            "high_freq_factor",
            "original_max_position_embeddings",
        ],
        "longrope" => &[
            "short_factor",
            "long_factor",
            "factor",
            "attention_factor",
            "original_max_position_embeddings",
        ],
        other => {
            return Err(invalid(format!(
                "\"{name}\" asks for rope type \"{other}\", which this crate does not compute (it computes default, linear, llama3 and longrope)"
            )))
        }
    };
    const ANY: [&str; 4] = ["rope_type", "type", "rope_theta", "partial_rotary_factor"];
    if let Some((key, value)) = dict
        .iter()
        .find(|(k, _)| !ANY.contains(&k.as_str()) && !own.contains(&k.as_str()))
    {
        return Err(invalid(format!(
            "\"{name}.{key}\" is {value}, which rope type \"{ty}\" does not use and this crate does not compute"
        )));
    }
    let theta = number("rope_theta")?.unwrap_or(top.theta);
    if theta <= 0.0 {
        return Err(invalid(format!(
            "expected \"{name}.rope_theta\" to be positive, found {theta}"
        )));
    }
    let partial = number("partial_rotary_factor")?
        .or(top.partial)
        .unwrap_or(1.0);
    if !(partial > 0.0 && partial <= 1.0) {
        return Err(invalid(format!(
            "expected \"partial_rotary_factor\" in (0, 1], found {partial}"
        )));
    }
    if partial != 1.0 && !top.partial_allowed {
        return Err(invalid(format!(
            "\"partial_rotary_factor\" is {partial}, but this architecture rotates whole heads (transformers' own model cannot run it either)"
        )));
    }
    let original = |top_first: bool| -> Result<f64, ModelError> {
        let own = number("original_max_position_embeddings")?;
        let top_level = top.top_original.map(|n| n as f64);
        let found = if top_first {
            top_level.or(own)
        } else {
            own.or(top_level)
        };
        found
            .or(top.context.map(|n| n as f64))
            .filter(|n| *n >= 1.0)
            .ok_or_else(|| {
                invalid(format!(
                    "missing \"{name}.original_max_position_embeddings\" (and \"max_position_embeddings\"), which rope type \"{ty}\" needs"
                ))
            })
    };
    let scaling = match ty {
        "default" => RopeScaling::None,
        "linear" => RopeScaling::Linear {
            factor: positive(required("factor")?, name, "factor", path)?,
        },
        "llama3" => {
            let (low, high) = (required("low_freq_factor")?, required("high_freq_factor")?);
            if high <= low {
                return Err(invalid(format!(
                    "expected \"{name}.high_freq_factor\" ({high}) to exceed \"low_freq_factor\" ({low})"
                )));
            }
            RopeScaling::Llama3 {
                factor: positive(required("factor")?, name, "factor", path)?,
                low_freq_factor: positive(low, name, "low_freq_factor", path)?,
                high_freq_factor: high,
                original: original(true)?,
            }
        }
        _ => {
            let original = original(true)?;
            let factor = match number("factor")? {
                Some(f) => f,
                None => top.context.map_or(1.0, |c| c as f64) / original,
            };
            let attention_factor = match number("attention_factor")? {
                Some(a) => a,
                None if factor <= 1.0 => 1.0,
                None => (1.0 + factor.ln() / original.ln()).sqrt(),
            };
            RopeScaling::LongRope {
                short: factors("short_factor")?,
                long: factors("long_factor")?,
                original: original as usize,
                attention_factor,
            }
        }
    };
    Ok(Rope {
        theta,
        partial,
        scaling,
    })
}

fn positive(x: f64, name: &str, key: &str, path: &Path) -> Result<f64, ModelError> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(ModelError::invalid(
            path,
            format!("expected \"{name}.{key}\" to be positive, found {x}"),
        ))
    }
}

/// The frequencies one kind of layer rotates with, for heads of a given
/// width: what a forward pass reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rotary {
    /// How many values at the start of each head rotate (all of it, unless
    /// the rotation is partial); even.
    pub dim: usize,
    /// The frequency of each pair of rotated values.
    pub inv_freq: Vec<f32>,
    /// LongRoPE: the frequencies of a pass that reaches past this many
    /// positions.
    pub long: Option<(usize, Vec<f32>)>,
    /// Multiplies the cosines and sines (LongRoPE's attention factor).
    pub scale: f32,
}

impl Rotary {
    /// Whole heads of `head_dim` rotated at base `theta`, unscaled.
    pub(crate) fn plain(theta: f32, head_dim: usize) -> Rotary {
        Rotary {
            dim: head_dim,
            inv_freq: default_inv_freq(theta, head_dim),
            long: None,
            scale: 1.0,
        }
    }

    /// The frequencies of a forward pass whose last position is `end - 1`.
    pub(crate) fn freqs(&self, end: usize) -> &[f32] {
        match &self.long {
            Some((after, long)) if end > *after => long,
            _ => &self.inv_freq,
        }
    }
}

impl Rope {
    /// The frequencies of this rotation for heads of `head_dim` values, as
    /// transformers computes them (in f32).
    pub(crate) fn rotary(&self, head_dim: usize) -> Result<Rotary, String> {
        // As Python's `int(head_dim * partial_rotary_factor)`.
        let dim = (head_dim as f64 * self.partial) as usize;
        if dim == 0 || !dim.is_multiple_of(2) || dim > head_dim {
            return Err(format!(
                "partial_rotary_factor {} of heads of {head_dim} values rotates {dim} values; expected an even number from 2 to {head_dim}",
                self.partial
            ));
        }
        let theta = self.theta as f32;
        let mut rotary = Rotary::plain(theta, dim);
        match &self.scaling {
            RopeScaling::None => {}
            RopeScaling::Linear { factor } => {
                rotary
                    .inv_freq
                    .iter_mut()
                    .for_each(|f| *f /= *factor as f32);
            }
            RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original,
            } => {
                rotary.inv_freq = llama3_scaling(
                    rotary.inv_freq,
                    *factor as f32,
                    *low_freq_factor as f32,
                    *high_freq_factor as f32,
                    *original as f32,
                );
            }
            RopeScaling::LongRope {
                short,
                long,
                original,
                attention_factor,
            } => {
                for (key, factors) in [("short_factor", short), ("long_factor", long)] {
                    if factors.len() != dim / 2 {
                        return Err(format!(
                            "LongRoPE's {key} has {} values; heads rotating {dim} values need {}",
                            factors.len(),
                            dim / 2
                        ));
                    }
                }
                rotary.inv_freq = longrope_inv_freq(theta, dim, short);
                rotary.long = Some((*original, longrope_inv_freq(theta, dim, long)));
                rotary.scale = *attention_factor as f32;
            }
        }
        Ok(rotary)
    }
}

/// transformers' default rotary frequencies: `1 / θ^(2j/dim)`, in f32.
pub(crate) fn default_inv_freq(theta: f32, dim: usize) -> Vec<f32> {
    (0..dim)
        .step_by(2)
        .map(|j| 1.0 / theta.powf(j as f32 / dim as f32))
        .collect()
}

/// LongRoPE's frequencies: `1 / (factor_j · θ^(2j/dim))`, in f32.
pub(crate) fn longrope_inv_freq(theta: f32, dim: usize, factors: &[f64]) -> Vec<f32> {
    (0..dim)
        .step_by(2)
        .zip(factors)
        .map(|(j, f)| 1.0 / (*f as f32 * theta.powf(j as f32 / dim as f32)))
        .collect()
}

/// Llama 3's frequency scaling for long contexts, as transformers applies it.
pub(crate) fn llama3_scaling(
    inv_freq: Vec<f32>,
    factor: f32,
    low_freq_factor: f32,
    high_freq_factor: f32,
    original: f32,
) -> Vec<f32> {
    let low_freq_wavelen = original / low_freq_factor;
    let high_freq_wavelen = original / high_freq_factor;
    inv_freq
        .into_iter()
        .map(|freq| {
            let wavelen = 2.0 * PI / freq;
            if wavelen < high_freq_wavelen {
                freq
            } else if wavelen > low_freq_wavelen {
                freq / factor
            } else {
                let smooth =
                    (original / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
                (1.0 - smooth) * freq / factor + smooth * freq
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(cfg: Value, defaults: RopeDefaults) -> Result<RopeLayers, String> {
        let Value::Object(map) = cfg else { panic!() };
        read_rope(&map, defaults, Path::new("config.json")).map_err(|e| e.to_string())
    }

    const PLAIN: RopeDefaults = RopeDefaults {
        theta: 10000.0,
        local_theta: None,
        partial: false,
    };
    const PHI3: RopeDefaults = RopeDefaults {
        partial: true,
        ..PLAIN
    };
    const GEMMA3: RopeDefaults = RopeDefaults {
        theta: 1_000_000.0,
        local_theta: Some(10000.0),
        partial: false,
    };

    #[test]
    fn both_styles_give_the_same_settings() {
        let llama3 = json!({"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192});
        let mut v4 = llama3.clone();
        v4["rope_type"] = json!("llama3");
        let mut v5 = v4.clone();
        v5["rope_theta"] = json!(500000.0);
        let old = read(
            json!({"rope_theta": 500000.0, "rope_scaling": v4, "max_position_embeddings": 131072}),
            PLAIN,
        )
        .unwrap();
        let new = read(
            json!({"rope_parameters": v5, "max_position_embeddings": 131072}),
            PLAIN,
        )
        .unwrap();
        assert_eq!(old, new);
        assert_eq!(old.full.theta, 500000.0);
        assert!(matches!(old.full.scaling, RopeScaling::Llama3 { factor, .. } if factor == 32.0));

        let gemma_old = read(
            json!({"rope_theta": 1e6, "rope_local_base_freq": 1e4}),
            GEMMA3,
        )
        .unwrap();
        let gemma_new = read(
            json!({"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e6}, "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}),
            GEMMA3,
        )
        .unwrap();
        assert_eq!(gemma_old, gemma_new);
        assert_eq!(gemma_new.sliding.unwrap().theta, 1e4);
    }

    #[test]
    fn a_rope_parameters_theta_wins_over_the_default() {
        // The case: Qwen 3's base only inside `rope_parameters`.
        let r = read(
            json!({"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}}),
            PLAIN,
        )
        .unwrap();
        assert_eq!(r.full.theta, 1e6);
    }

    #[test]
    fn longrope_reads_phi3s_top_level_original_and_derives_its_attention_factor() {
        let factors: Vec<f64> = (0..6).map(|i| 1.0 + i as f64).collect();
        let r = read(
            json!({"partial_rotary_factor": 0.75, "max_position_embeddings": 64,
                   "original_max_position_embeddings": 8,
                   "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "long_factor": factors}}),
            PHI3,
        )
        .unwrap();
        let RopeScaling::LongRope {
            original,
            attention_factor,
            ..
        } = r.full.scaling
        else {
            panic!()
        };
        assert_eq!(original, 8);
        let expected = (1.0 + (64.0f64 / 8.0).ln() / 8.0f64.ln()).sqrt();
        assert!((attention_factor - expected).abs() < 1e-12);
        let rotary = r.full.rotary(16).unwrap();
        assert_eq!(rotary.dim, 12);
        assert_eq!(rotary.freqs(8), &rotary.inv_freq[..]);
        assert_ne!(rotary.freqs(9), &rotary.inv_freq[..]);
    }

    #[test]
    fn settings_not_computed_are_refused_by_name() {
        for (cfg, needle) in [
            (
                json!({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}),
                "\"yarn\"",
            ),
            (
                json!({"rope_scaling": {"type": "dynamic", "factor": 2.0}}),
                "\"dynamic\"",
            ),
            (
                json!({"rope_parameters": {"rope_type": "default", "mrope_section": [1, 2]}}),
                "mrope_section",
            ),
            (
                json!({"partial_rotary_factor": 0.5}),
                "partial_rotary_factor",
            ),
            (json!({"rope_scaling": "linear"}), "rope_scaling"),
            (json!({"rope_scaling": {"rope_type": "linear"}}), "factor"),
        ] {
            let e = read(cfg.clone(), PLAIN).unwrap_err();
            assert!(e.contains(needle), "{cfg}: {e}");
        }
    }
}
