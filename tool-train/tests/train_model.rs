//! The differentiable Llama: gradients reach every parameter and agree with finite
//! differences, candle-transformers' Llama loads the export with the same logits, the
//! loss counts exactly the masked-in tokens, and a deepened model computes what it grew
//! from.

mod common;

use common::scratch_path;

use candle_core::{DType, Device, IndexOp, Tensor, D};
use tool_train::train::{deepen, export_hf, Batch, Example, Llama, ModelConfig, Precision};

fn tiny_config() -> ModelConfig {
    common::tiny_config(61, 48)
}

/// Deterministic pseudo-random token ids below `vocab`.
fn tokens(seed: u32, n: usize, vocab: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (i * 7 + seed * 13 + i * i * 3) % vocab)
        .collect()
}

fn two_examples() -> Vec<Example> {
    let a = tokens(1, 12, 61);
    let mut mask_a = vec![false; 12];
    mask_a[5..12].iter_mut().for_each(|m| *m = true);
    let b = tokens(2, 7, 61);
    let mut mask_b = vec![false; 7];
    mask_b[2..5].iter_mut().for_each(|m| *m = true);
    vec![
        Example::new(a, mask_a).unwrap(),
        Example::new(b, mask_b).unwrap(),
    ]
}

fn scalar(t: &Tensor) -> f64 {
    f64::from(t.to_scalar::<f32>().unwrap())
}

#[test]
fn every_parameter_receives_a_nonzero_gradient() {
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 1).unwrap();
    let batch = Batch::new(&two_examples(), config.pad_token_id, 64, config.vocab_size).unwrap();
    let loss = model.loss(&batch).unwrap();
    let grads = loss.backward().unwrap();
    let params = model.named_parameters();
    assert_eq!(params.len(), 1 + 9 * config.num_hidden_layers + 1);
    for (name, var) in &params {
        let grad = grads
            .get(var.as_tensor())
            .unwrap_or_else(|| panic!("{name} received no gradient"));
        assert_eq!(grad.dims(), var.dims(), "{name}");
        let size = scalar(&grad.abs().unwrap().sum_all().unwrap());
        assert!(
            size > 0.0 && size.is_finite(),
            "{name}: gradient of size {size}"
        );
    }
}

#[test]
fn gradients_match_finite_differences() {
    // f64 would be more precise, but the model is f32 throughout: perturb by a step large
    // enough that rounding in the loss stays well below the change being measured.
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 2).unwrap();
    let batch = Batch::new(&two_examples(), config.pad_token_id, 64, config.vocab_size).unwrap();
    let grads = model.loss(&batch).unwrap().backward().unwrap();
    let checked = [
        "model.embed_tokens.weight",
        "model.layers.0.input_layernorm.weight",
        "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight",
        "model.layers.1.self_attn.v_proj.weight",
        "model.layers.1.self_attn.o_proj.weight",
        "model.layers.1.post_attention_layernorm.weight",
        "model.layers.0.mlp.gate_proj.weight",
        "model.layers.1.mlp.up_proj.weight",
        "model.layers.0.mlp.down_proj.weight",
        "model.norm.weight",
    ];
    for (name, var) in model.named_parameters() {
        if !checked.contains(&name.as_str()) {
            continue;
        }
        let grad: Vec<f32> = grads
            .get(var.as_tensor())
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        // The entry with the largest gradient: its finite difference is the best resolved.
        let (index, &analytic) = grad
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .unwrap();
        let original: Vec<f32> = var.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        let eps = 1e-2f32;
        let loss_at = |delta: f32| {
            let mut values = original.clone();
            values[index] += delta;
            var.set(&Tensor::from_vec(values, var.dims(), &Device::Cpu).unwrap())
                .unwrap();
            scalar(&model.loss(&batch).unwrap())
        };
        let numeric = (loss_at(eps) - loss_at(-eps)) / (2.0 * f64::from(eps));
        loss_at(0.0);
        let analytic = f64::from(analytic);
        assert!(
            (numeric - analytic).abs() <= 0.03 * analytic.abs() + 2e-4,
            "{name}[{index}]: backprop {analytic}, finite difference {numeric}"
        );
    }
}

#[test]
fn candle_transformers_llama_loads_the_export_with_the_same_logits() {
    use candle_transformers::models::llama::{Cache, Llama as CtLlama, LlamaConfig};
    // Large weights give logits of several units, so that 1e-4 is a strict tolerance.
    let config = ModelConfig {
        initializer_range: 0.3,
        ..tiny_config()
    };
    let model = Llama::new_seeded(&config, 3).unwrap();
    let dir = scratch_path("ct-logits");
    std::fs::create_dir_all(&dir).unwrap();
    export_hf(&model, &dir, Precision::F32).unwrap();
    assert!(!dir.join("lm_head.weight").exists());

    let text = std::fs::read_to_string(dir.join("config.json")).unwrap();
    let ct_config: LlamaConfig = serde_json::from_str(&text).unwrap();
    let ct_config = ct_config.into_config(false);
    assert!(ct_config.tie_word_embeddings);
    let weights =
        candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    assert!(!weights.contains_key("lm_head.weight"));
    let vb = candle_nn::VarBuilder::from_tensors(weights, DType::F32, &Device::Cpu);
    let reference = CtLlama::load(vb, &ct_config).unwrap();

    let ids = tokens(5, 40, config.vocab_size as u32);
    let ours = model
        .logits(
            &Tensor::new(ids.as_slice(), &Device::Cpu)
                .unwrap()
                .unsqueeze(0)
                .unwrap(),
        )
        .unwrap();
    // candle-transformers returns the logits of the last position only: compare prefixes.
    let mut worst = 0f32;
    for len in [1, 2, 7, 16, 33, 40] {
        let mut cache = Cache::new(false, DType::F32, &ct_config, &Device::Cpu).unwrap();
        let input = Tensor::new(&ids[..len], &Device::Cpu)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        let theirs = reference
            .forward(&input, 0, &mut cache)
            .unwrap()
            .squeeze(0)
            .unwrap();
        let mine = ours.i((0, len - 1)).unwrap();
        let diff: f32 = (theirs - mine)
            .unwrap()
            .abs()
            .unwrap()
            .max(D::Minus1)
            .unwrap()
            .to_scalar()
            .unwrap();
        worst = worst.max(diff);
    }
    eprintln!("largest logit difference {worst}");
    assert!(worst < 1e-4, "largest logit difference {worst}");
    // Logits that are all alike would pass trivially: they must differ across the vocabulary.
    let spread: f32 = ours
        .i((0, 39))
        .unwrap()
        .max(0)
        .unwrap()
        .to_scalar::<f32>()
        .unwrap()
        - ours
            .i((0, 39))
            .unwrap()
            .min(0)
            .unwrap()
            .to_scalar::<f32>()
            .unwrap();
    assert!(spread > 1.0, "logit spread {spread}");

    // And our own loader reads the directory back to the same parameters.
    let back = Llama::load_hf_dir(&dir).unwrap();
    for ((a, va), (b, vb)) in model
        .named_parameters()
        .iter()
        .zip(back.named_parameters().iter())
    {
        assert_eq!(a, b);
        let same: f32 = (va.as_tensor() - vb.as_tensor())
            .unwrap()
            .abs()
            .unwrap()
            .sum_all()
            .unwrap()
            .to_scalar()
            .unwrap();
        assert_eq!(same, 0.0, "{a}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exported_config_is_a_tied_llama_for_causal_lm() {
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 4).unwrap();
    let dir = scratch_path("config-json");
    std::fs::create_dir_all(&dir).unwrap();
    export_hf(&model, &dir, Precision::F32).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(
        json["architectures"],
        serde_json::json!(["LlamaForCausalLM"])
    );
    assert_eq!(json["model_type"], "llama");
    assert_eq!(json["tie_word_embeddings"], true);
    assert_eq!(json["torch_dtype"], "float32");
    assert_eq!(json["num_key_value_heads"], 2);
    assert_eq!(json["head_dim"], 8);
    assert_eq!(json["pad_token_id"], 2);
    assert_eq!(ModelConfig::from_hf_json(&json).unwrap(), config);
    let generation: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("generation_config.json")).unwrap())
            .unwrap();
    assert_eq!(generation["eos_token_id"], 1);
    // transformers refuses safetensors files without a format in their metadata.
    let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + header_len]).unwrap();
    assert_eq!(header["__metadata__"]["format"], "pt");
    assert_eq!(
        header["model.embed_tokens.weight"]["shape"],
        serde_json::json!([61, 32])
    );

    let mut untied = json.clone();
    untied["tie_word_embeddings"] = serde_json::json!(false);
    let err = ModelConfig::from_hf_json(&untied).unwrap_err().to_string();
    assert!(err.contains("tie_word_embeddings"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_seed_same_model_other_seed_other_model() {
    let config = tiny_config();
    let flat = |m: &Llama| -> Vec<f32> {
        m.named_parameters()
            .iter()
            .flat_map(|(_, v)| {
                v.as_tensor()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap()
            })
            .collect()
    };
    let a = flat(&Llama::new_seeded(&config, 9).unwrap());
    assert_eq!(a, flat(&Llama::new_seeded(&config, 9).unwrap()));
    assert_ne!(a, flat(&Llama::new_seeded(&config, 10).unwrap()));
}

/// Mean of -log p(target) over the counted positions, from the full logits.
fn reference_loss(model: &Llama, example: &Example) -> f64 {
    let ids = Tensor::new(example.ids.as_slice(), &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let logits = model.logits(&ids).unwrap().squeeze(0).unwrap();
    let log_probs = candle_nn::ops::log_softmax(&logits, D::Minus1).unwrap();
    let log_probs: Vec<Vec<f32>> = log_probs.to_vec2().unwrap();
    let mut total = 0.0;
    let mut n = 0;
    for t in 1..example.ids.len() {
        if example.mask[t] {
            total -= f64::from(log_probs[t - 1][example.ids[t] as usize]);
            n += 1;
        }
    }
    total / n as f64
}

#[test]
fn the_loss_counts_exactly_the_masked_in_tokens() {
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 5).unwrap();
    let examples = two_examples();
    let loss_of = |e: &[Example]| {
        let batch = Batch::new(e, config.pad_token_id, 64, config.vocab_size).unwrap();
        scalar(&model.loss(&batch).unwrap())
    };

    // The loss is the mean over counted positions of the next-token cross entropy.
    for example in &examples {
        let ours = loss_of(std::slice::from_ref(example));
        let reference = reference_loss(&model, example);
        assert!((ours - reference).abs() < 1e-5, "{ours} vs {reference}");
    }

    // A token whose prediction does not count can be anything.
    let mut changed = examples[0].clone();
    assert!(!changed.mask[3]);
    changed.ids[3] = (changed.ids[3] + 17) % 61;
    let last = changed.ids.len() - 1;
    changed.mask[last] = false;
    let mut changed_again = changed.clone();
    changed_again.ids[last] = (changed.ids[last] + 5) % 61;
    assert_eq!(loss_of(&[changed.clone()]), loss_of(&[changed_again]));
    // ... but does change the loss as context of later counted tokens, so the model is not
    // ignoring it either.
    assert_ne!(loss_of(&examples[..1]), loss_of(&[changed]));

    // Batching with padding gives the mean over both sequences' counted tokens.
    let (na, nb) = (examples[0].counted() as f64, examples[1].counted() as f64);
    let expected = (loss_of(&examples[..1]) * na + loss_of(&examples[1..]) * nb) / (na + nb);
    let batched = loss_of(&examples);
    assert!((batched - expected).abs() < 1e-5, "{batched} vs {expected}");

    // Uncounted tokens after the last counted one change nothing.
    let mut longer = examples[1].clone();
    longer.ids.extend([9, 8, 7, 6]);
    longer.mask.extend([false; 4]);
    let a = loss_of(&examples[1..]);
    let b = loss_of(&[longer]);
    assert!((a - b).abs() < 1e-6, "{a} vs {b}");
}

#[test]
fn batches_reject_bad_examples() {
    assert!(Example::new(vec![1, 2, 3], vec![true]).is_err());
    let config = tiny_config();
    let bad = Example::unmasked(vec![1, 2, 99]);
    let err = Batch::new(&[bad], 2, 64, config.vocab_size)
        .unwrap_err()
        .to_string();
    assert!(err.contains("99"), "{err}");
    let model = Llama::new_seeded(&config, 1).unwrap();
    let long = Example::unmasked(tokens(1, 80, 61));
    let batch = Batch::new(&[long], 2, 100, config.vocab_size).unwrap();
    let err = model.loss(&batch).unwrap_err().to_string();
    assert!(err.contains("max_position_embeddings"), "{err}");
}

#[test]
fn loss_weights_scale_each_counted_token_and_a_zero_weight_drops_it() {
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 4).unwrap();
    let loss = |examples: &[Example]| {
        let batch = Batch::new(examples, config.pad_token_id, 64, config.vocab_size).unwrap();
        scalar(&model.loss(&batch).unwrap())
    };
    let plain = two_examples();
    let uniform: Vec<Example> = plain
        .iter()
        .map(|e| e.clone().with_weights(vec![3.0; e.ids.len()]).unwrap())
        .collect();
    assert!(
        (loss(&plain) - loss(&uniform)).abs() < 1e-5,
        "equal weights: the plain mean"
    );

    // Weight 0 on the first example's tokens 5..8 is masking them out.
    let mut zeroed = plain.clone();
    let mut w = vec![1.0; zeroed[0].ids.len()];
    w[5..8].iter_mut().for_each(|x| *x = 0.0);
    zeroed[0] = zeroed[0].clone().with_weights(w).unwrap();
    let mut masked = plain.clone();
    masked[0].mask[5..8].iter_mut().for_each(|m| *m = false);
    assert!((loss(&zeroed) - loss(&masked)).abs() < 1e-5);

    // A heavier token pulls the mean toward its own loss.
    let mut heavy = plain.clone();
    let mut w = vec![1.0; heavy[1].ids.len()];
    w[3] = 50.0;
    heavy[1] = heavy[1].clone().with_weights(w).unwrap();
    let only: Vec<Example> = {
        let mut e = plain[1].clone();
        e.mask = vec![false; e.ids.len()];
        e.mask[3] = true;
        vec![e]
    };
    let (mean, alone, weighted) = (loss(&plain), loss(&only), loss(&heavy));
    assert!(
        (weighted - alone).abs() < (mean - alone).abs(),
        "{mean} {alone} {weighted}"
    );

    assert!(plain[0].clone().with_weights(vec![1.0; 3]).is_err());
    assert!(plain[0].clone().with_weights(vec![f32::NAN; 12]).is_err());
    assert!(plain[0].clone().with_weights(vec![-1.0; 12]).is_err());
}

fn var(model: &Llama, name: &str) -> candle_core::Var {
    model
        .named_parameters()
        .into_iter()
        .find_map(|(n, var)| (n == name).then_some(var))
        .unwrap_or_else(|| panic!("no parameter {name}"))
}

fn param(model: &Llama, name: &str) -> Vec<f32> {
    let var = var(model, name);
    var.as_tensor().flatten_all().unwrap().to_vec1().unwrap()
}

fn logits_of(model: &Llama, ids: &Tensor) -> Vec<Vec<f32>> {
    model
        .logits(ids)
        .unwrap()
        .squeeze(0)
        .unwrap()
        .to_vec2()
        .unwrap()
}

#[test]
fn a_deepened_model_computes_the_same_logits_and_trains_its_new_layers() {
    let config = tiny_config();
    let model = Llama::new_seeded(&config, 6).unwrap();
    let ids = Tensor::new(tokens(3, 20, 61).as_slice(), &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let before = logits_of(&model, &ids);
    for layers in [2, 3, 5] {
        let deeper = deepen(&model, layers).unwrap();
        assert_eq!(deeper.config().num_hidden_layers, layers);
        assert_eq!(deeper.named_parameters().len(), 2 + 9 * layers);
        let after = logits_of(&deeper, &ids);
        assert_eq!(before, after, "{layers} layers: the logits changed");
    }

    // 2 -> 3: the new layer is layer 1, a copy of layer 0 that writes nothing yet.
    let deeper = deepen(&model, 3).unwrap();
    let copied = "self_attn.q_proj.weight";
    assert_eq!(
        param(&deeper, &format!("model.layers.1.{copied}")),
        param(&model, &format!("model.layers.0.{copied}"))
    );
    assert_eq!(
        param(&deeper, "model.layers.2.mlp.up_proj.weight"),
        param(&model, "model.layers.1.mlp.up_proj.weight")
    );
    let batch = Batch::new(&two_examples(), config.pad_token_id, 64, config.vocab_size).unwrap();
    let grads = deeper.loss(&batch).unwrap().backward().unwrap();
    for output in ["self_attn.o_proj.weight", "mlp.down_proj.weight"] {
        let name = format!("model.layers.1.{output}");
        assert!(param(&deeper, &name).iter().all(|&w| w == 0.0), "{name}");
        let grad = grads
            .get(var(&deeper, &name).as_tensor())
            .expect("a gradient");
        let size = scalar(&grad.abs().unwrap().sum_all().unwrap());
        assert!(
            size > 0.0 && size.is_finite(),
            "{name}: gradient of size {size}"
        );
    }

    let err = deepen(&deeper, 2).unwrap_err().to_string();
    assert!(
        err.contains("at least the model's 3 layers") && err.contains("found 2"),
        "{err}"
    );
}
