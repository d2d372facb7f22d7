//! Sizes in bytes on the command line: `100000`, `512K`, `512M`, `2G`.

/// Parses a size: a whole number of bytes, or of KiB, MiB or GiB with the
/// suffix `K`, `M` or `G` (powers of 1024, case-insensitive; `KiB`,
/// `MiB`, `GiB` and `KB`, `MB`, `GB` read the same).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    if number.is_empty() {
        return Err(format!(
            "{text:?} is not a size: expected a number of bytes, or one with K, M or G (e.g. 512M)"
        ));
    }
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (use K, M or G, e.g. 512M)"
            ))
        }
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("100000"), Ok(100_000));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("3MiB"), Ok(3 << 20));
    }

    #[test]
    fn malformed_sizes_are_refused_with_the_reason() {
        for bad in ["", "M", "-1", "1.5G", "12Q", "2 G B"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_size("12Q")
            .unwrap_err()
            .contains("unknown unit \"Q\""));
        assert!(parse_size("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
    }
}
