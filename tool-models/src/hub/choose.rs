//! Which of a repository's files an `hf:` name means: a GGUF file by quant
//! tag, as llama.cpp's `-hf` chooses, or a safetensors model's files.

/// The quant tags tried, in order, when a name gives none.
pub(crate) const DEFAULT_QUANTS: [&str; 2] = ["Q4_K_M", "Q8_0"];

/// The files of a safetensors model fetched when the repository has them.
pub(crate) const OPTIONAL_FILES: [&str; 4] = [
    "tokenizer.json",
    "tokenizer_config.json",
    "generation_config.json",
    "chat_template.jinja",
];

/// The index naming a sharded model's weight files.
pub(crate) const WEIGHTS_INDEX: &str = "model.safetensors.index.json";

/// Whether `file` is a model's GGUF file (not a vision projector's
/// `mmproj` nor an importance matrix).
pub(crate) fn is_model_gguf(file: &str) -> bool {
    let lower = file.to_ascii_lowercase();
    lower.ends_with(".gguf") && !lower.contains("mmproj") && !lower.contains("imatrix")
}

/// The model GGUF files among `files`, in their order.
pub(crate) fn gguf_files(files: &[String]) -> Vec<String> {
    files.iter().filter(|f| is_model_gguf(f)).cloned().collect()
}

/// A GGUF file's name without its folders, `.gguf` and split suffix, and
/// its split (`index`, `count`) when it is one shard of several.
fn stem_and_split(file: &str) -> (&str, Option<(u32, u32)>) {
    let base = file.rsplit('/').next().unwrap_or(file);
    let stem = &base[..base.len().saturating_sub(".gguf".len())];
    // `-00001-of-00003`: 15 bytes.
    if let Some(at) = stem.len().checked_sub(15) {
        let suffix = &stem.as_bytes()[at..];
        let digits = |r: std::ops::Range<usize>| {
            suffix[r.clone()]
                .iter()
                .all(u8::is_ascii_digit)
                .then(|| std::str::from_utf8(&suffix[r]).ok()?.parse::<u32>().ok())
                .flatten()
        };
        if suffix[0] == b'-' && &suffix[6..10] == b"-of-" {
            if let (Some(index), Some(count)) = (digits(1..6), digits(10..15)) {
                return (&stem[..at], Some((index, count)));
            }
        }
    }
    (stem, None)
}

/// Whether the GGUF file `file` carries `tag` (case-insensitive): its name
/// ends with the tag after a separator (`model-Q4_K_M.gguf`), or holds it
/// between separators (`model.Q4_K_M.v2.gguf`).
pub(crate) fn has_tag(file: &str, tag: &str) -> bool {
    let (stem, _) = stem_and_split(file);
    let stem = stem.to_ascii_uppercase();
    let tag = tag.to_ascii_uppercase();
    if tag.is_empty() {
        return false;
    }
    let separator_before = |at: usize| at == 0 || !stem.as_bytes()[at - 1].is_ascii_alphanumeric();
    if stem.ends_with(&tag) && separator_before(stem.len() - tag.len()) {
        return true;
    }
    stem.match_indices(&tag).any(|(at, _)| {
        let after = stem.as_bytes().get(at + tag.len());
        separator_before(at) && after.is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_')
    })
}

/// The GGUF file `quant` names among `files` (the default quants then the
/// first GGUF file when `None`), with the other shards of a split file after
/// it: `None` when there is none.
pub(crate) fn choose_gguf(files: &[String], quant: Option<&str>) -> Option<Vec<String>> {
    let candidates: Vec<&String> = files
        .iter()
        .filter(|f| is_model_gguf(f))
        .filter(|f| matches!(stem_and_split(f).1, None | Some((1, _))))
        .collect();
    let tagged = |tag: &str| candidates.iter().find(|f| has_tag(f, tag)).copied();
    let chosen = match quant {
        Some(tag) => tagged(tag)?,
        None => DEFAULT_QUANTS
            .iter()
            .find_map(|tag| tagged(tag))
            .or_else(|| candidates.first().copied())?,
    };
    let mut chosen_files = vec![chosen.clone()];
    if let (stem, Some((_, count))) = stem_and_split(chosen) {
        let folder = &chosen[..chosen.len() - chosen.rsplit('/').next().unwrap_or("").len()];
        for f in files {
            let (other_stem, split) = stem_and_split(f);
            let same_folder =
                f.len() > folder.len() && f.starts_with(folder) && !f[folder.len()..].contains('/');
            if let Some((index, n)) = split {
                if index != 1 && n == count && other_stem == stem && same_folder && is_model_gguf(f)
                {
                    chosen_files.push(f.clone());
                }
            }
        }
        chosen_files[1..].sort();
    }
    Some(chosen_files)
}

/// The files of a safetensors model among `files`: `config.json`, the
/// optional tokenizer and template files present, and `model.safetensors`
/// or the shards' index (whose shards come after reading it): `None` when
/// the config or the weights are missing.
pub(crate) fn safetensors_files(files: &[String]) -> Option<Vec<String>> {
    let has = |name: &str| files.iter().any(|f| f == name);
    if !has("config.json") {
        return None;
    }
    let weights = if has("model.safetensors") {
        "model.safetensors"
    } else if has(WEIGHTS_INDEX) {
        WEIGHTS_INDEX
    } else {
        return None;
    };
    let mut chosen = vec!["config.json".to_owned()];
    chosen.extend(
        OPTIONAL_FILES
            .iter()
            .filter(|f| has(f))
            .map(|f| f.to_string()),
    );
    chosen.push(weights.to_owned());
    Some(chosen)
}

/// The weight files a `model.safetensors.index.json` names, sorted, each
/// once: `Err` with what is wrong when it is not such an index.
pub(crate) fn index_shards(index: &str) -> Result<Vec<String>, String> {
    let value: serde_json::Value =
        serde_json::from_str(index).map_err(|e| format!("not valid JSON: {e}"))?;
    let map = value
        .get("weight_map")
        .and_then(|m| m.as_object())
        .ok_or("expected an object `weight_map` naming each tensor's file")?;
    let mut shards = Vec::new();
    for (tensor, file) in map {
        let file = file
            .as_str()
            .ok_or_else(|| format!("`weight_map.{tensor}` is not a file name"))?;
        if file.is_empty() || file.contains("..") || file.starts_with('/') {
            return Err(format!(
                "`weight_map.{tensor}` names {file:?}, not a file of the repository"
            ));
        }
        shards.push(file.to_owned());
    }
    shards.sort();
    shards.dedup();
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(files: &[&str]) -> Vec<String> {
        files.iter().map(|f| f.to_string()).collect()
    }

    fn choose(files: &[&str], quant: Option<&str>) -> Option<Vec<String>> {
        choose_gguf(&list(files), quant)
    }

    const REPO: [&str; 8] = [
        "README.md",
        "mmproj-model-f16.gguf",
        "model-Q2_K.gguf",
        "model-Q4_K_M.imatrix.gguf",
        "model-q4_k_m.gguf",
        "model-Q4_K_S.gguf",
        "model-Q8_0.gguf",
        "model-UD-Q4_K_XL.gguf",
    ];

    #[test]
    fn a_tag_chooses_case_insensitively_and_exactly() {
        assert_eq!(choose(&REPO, Some("Q8_0")).unwrap(), ["model-Q8_0.gguf"]);
        assert_eq!(choose(&REPO, Some("q2_k")).unwrap(), ["model-Q2_K.gguf"]);
        assert_eq!(
            choose(&REPO, Some("Q4_K_M")).unwrap(),
            ["model-q4_k_m.gguf"]
        );
        assert_eq!(
            choose(&REPO, Some("Q4_K_S")).unwrap(),
            ["model-Q4_K_S.gguf"]
        );
        assert_eq!(
            choose(&REPO, Some("ud-q4_k_xl")).unwrap(),
            ["model-UD-Q4_K_XL.gguf"]
        );
        // A prefix of a longer tag is not that tag.
        assert_eq!(choose(&REPO, Some("Q4_K")), None);
        assert_eq!(choose(&REPO, Some("F16")), None);
        assert_eq!(
            choose(&["m.Q5_K_M.v2.gguf"], Some("q5_k_m")).unwrap(),
            ["m.Q5_K_M.v2.gguf"]
        );
    }

    #[test]
    fn no_tag_prefers_q4_k_m_then_q8_0_then_the_first() {
        assert_eq!(choose(&REPO, None).unwrap(), ["model-q4_k_m.gguf"]);
        assert_eq!(
            choose(&["a-F16.gguf", "a-Q8_0.gguf", "a-Q2_K.gguf"], None).unwrap(),
            ["a-Q8_0.gguf"]
        );
        assert_eq!(
            choose(&["a-F16.gguf", "a-Q2_K.gguf"], None).unwrap(),
            ["a-F16.gguf"]
        );
        assert_eq!(choose(&["README.md", "config.json"], None), None);
    }

    #[test]
    fn mmproj_and_imatrix_are_never_chosen() {
        let files = ["mmproj-Q4_K_M.gguf", "x.imatrix.gguf", "imatrix-Q8_0.gguf"];
        assert_eq!(choose(&files, None), None);
        assert_eq!(choose(&files, Some("Q4_K_M")), None);
        assert_eq!(gguf_files(&list(&REPO)).len(), 5);
    }

    #[test]
    fn a_split_file_is_chosen_by_its_first_shard_with_the_others() {
        let files = [
            "Q4_K_M/m-Q4_K_M-00002-of-00003.gguf",
            "Q4_K_M/m-Q4_K_M-00001-of-00003.gguf",
            "Q4_K_M/m-Q4_K_M-00003-of-00003.gguf",
            "Q8_0/m-Q8_0-00001-of-00002.gguf",
            "Q8_0/m-Q8_0-00002-of-00002.gguf",
        ];
        assert_eq!(
            choose(&files, None).unwrap(),
            [
                "Q4_K_M/m-Q4_K_M-00001-of-00003.gguf",
                "Q4_K_M/m-Q4_K_M-00002-of-00003.gguf",
                "Q4_K_M/m-Q4_K_M-00003-of-00003.gguf"
            ]
        );
        assert_eq!(
            choose(&files, Some("q8_0")).unwrap(),
            [
                "Q8_0/m-Q8_0-00001-of-00002.gguf",
                "Q8_0/m-Q8_0-00002-of-00002.gguf"
            ]
        );
        // Without its first shard a split file is not chosen.
        assert_eq!(choose(&files[..1], None), None);
    }

    #[test]
    fn safetensors_models_need_a_config_and_weights() {
        let files = list(&[
            "config.json",
            "tokenizer.json",
            "model.safetensors",
            "README.md",
        ]);
        assert_eq!(
            safetensors_files(&files).unwrap(),
            ["config.json", "tokenizer.json", "model.safetensors"]
        );
        let sharded = list(&[
            "config.json",
            "chat_template.jinja",
            "generation_config.json",
            "tokenizer_config.json",
            "tokenizer.json",
            "model.safetensors.index.json",
            "model-00001-of-00002.safetensors",
        ]);
        assert_eq!(
            safetensors_files(&sharded).unwrap(),
            [
                "config.json",
                "tokenizer.json",
                "tokenizer_config.json",
                "generation_config.json",
                "chat_template.jinja",
                "model.safetensors.index.json"
            ]
        );
        assert_eq!(safetensors_files(&list(&["config.json"])), None);
        assert_eq!(safetensors_files(&list(&["model.safetensors"])), None);
    }

    #[test]
    fn an_index_names_its_shards_once() {
        let index = r#"{"metadata": {}, "weight_map": {"a": "m-2.safetensors", "b": "m-1.safetensors", "c": "m-2.safetensors"}}"#;
        assert_eq!(
            index_shards(index).unwrap(),
            ["m-1.safetensors", "m-2.safetensors"]
        );
        assert!(index_shards("{}").unwrap_err().contains("weight_map"));
        assert!(index_shards(r#"{"weight_map": {"a": "../x"}}"#)
            .unwrap_err()
            .contains("../x"));
    }
}
