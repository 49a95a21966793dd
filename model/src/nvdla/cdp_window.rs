//! CDP_RDMA's 16-channel window of an atom from the atoms of three consecutive surfaces, and
//! the padding of channels outside the cube (DATIN_OFFSET's low byte). RTL:
//! `npu_hdl::nvdla::cdp_window::CdpWindow`.

/// An atom of padding only: every lane DATIN_OFFSET's low byte.
pub fn pad(datin_offset: u16) -> u64 {
    u64::from(datin_offset as u8) * 0x0101_0101_0101_0101
}

/// The atom read, its lanes past `last_lanes` (CHANNEL's low 3 bits) padded when it is the
/// cube's last surface.
pub fn padded(atom: u64, last: bool, last_lanes: u8, datin_offset: u16) -> u64 {
    (0..8u8).fold(0, |word, lane| {
        let byte = if last && lane > last_lanes { u64::from(datin_offset as u8) } else { atom >> (8 * lane) & 0xff };
        word | byte << (8 * lane)
    })
}

/// The window of `centre`: `lower`'s lanes 4..7, `centre`'s 8 lanes, `upper`'s lanes 0..3, lane i in
/// bits 8i+7..8i.
pub fn window(lower: u64, centre: u64, upper: u64) -> u128 {
    u128::from(lower >> 32) | u128::from(centre) << 32 | u128::from(upper as u32) << 96
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_surface_pads_past_the_cube() {
        // 11 channels: the last surface holds channels 8, 9, 10 (lanes 0..=2).
        assert_eq!(padded(0x8877_6655_4433_2211, true, 2, 0x01f0), 0xf0f0_f0f0_f033_2211);
        assert_eq!(padded(0x8877_6655_4433_2211, false, 2, 0x01f0), 0x8877_6655_4433_2211);
        assert_eq!(pad(0x1280), 0x8080_8080_8080_8080);
    }

    #[test]
    fn the_window_takes_four_channels_each_side() {
        let w = window(0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908, 0x1716_1514_1312_1110);
        let lanes: Vec<u8> = (0..16).map(|i| (w >> (8 * i)) as u8).collect();
        assert_eq!(lanes, (4..20).collect::<Vec<u8>>());
    }
}
