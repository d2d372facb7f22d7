//! The shipped weights compute the same function in the training model and
//! in the inference model.

mod common;

use tool_use::generate::Session;
use tool_use::model::Model;

#[test]
fn the_training_model_and_the_inference_model_agree_on_the_shipped_weights() {
    // The weights were trained by `tool_train::train::Llama` (our own
    // differentiable ops) and are served by candle-transformers' llama:
    // both must compute the same function.
    use candle_core::{Device, Tensor};
    let dir = tool_use::bundled::model_dir();
    let model = Model::load(&dir).unwrap();
    let trained = tool_train::train::Llama::load_hf_dir(&dir).unwrap();
    let ids = model
        .tokenizer()
        .encode("<|im_start|>user\nHow windy is it in Oslo?<|im_end|>\n<|im_start|>assistant\n")
        .unwrap();
    let served = Session::new(model).logits(&ids).unwrap();
    let input = Tensor::new(ids.as_slice(), &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let all = trained.logits(&input).unwrap();
    let last: Vec<f32> = all
        .squeeze(0)
        .unwrap()
        .get(ids.len() - 1)
        .unwrap()
        .to_vec1()
        .unwrap();
    let diff = common::max_abs_diff(&served, &last);
    assert!(diff < 1e-4, "max |Δlogit| = {diff}");
}
