//! Money as people read it: cents for ordinary amounts, and the significant digits of a
//! fraction of a cent, so a $0.004 limit never prints as "$0.00".

/// US dollars: `$1.50`, `$0.00`, `$0.004`, `$0.000123`.
pub fn usd(amount: f64) -> String {
    if amount == 0.0 || !amount.is_finite() || amount.abs() >= 0.01 {
        return format!("${:.2}", amount + 0.0);
    }
    let text = format!("{amount:.6}");
    let trimmed = text.trim_end_matches('0');
    format!("${trimmed}")
}

#[cfg(test)]
mod tests {
    use super::usd;

    #[test]
    fn cents_for_ordinary_amounts_digits_for_fractions_of_a_cent() {
        assert_eq!(usd(1.5), "$1.50");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(-0.0), "$0.00");
        assert_eq!(usd(0.01), "$0.01");
        assert_eq!(usd(0.004), "$0.004");
        assert_eq!(usd(0.000_123_4), "$0.000123");
        assert_eq!(usd(12.346), "$12.35");
    }
}
