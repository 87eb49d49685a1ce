/**
 * The Redis Cluster hash slot of a key (the cluster specification: CRC16-XMODEM of the key, or of
 * its hash tag — the text between the first `{` and the next `}` when not empty — modulo 16384).
 * Keys with the same hash tag share a slot, hence a node: what one Lua script may touch together.
 *
 * @example
 * keySlot('evmsim:{fork:abc}') === keySlot('evmsim:{fork:abc}:blocks') // true
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key)
  const open = bytes.indexOf(0x7b)
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1)
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384
  }
  return crc16(bytes) % 16384
}

function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const b of bytes) {
    crc ^= b << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}
