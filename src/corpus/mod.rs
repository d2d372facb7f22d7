//! The synthetic tool-use corpus the bundled model is trained on.
