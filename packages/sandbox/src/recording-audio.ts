// The sandbox's call recordings: WAV files (8 kHz, 8-bit, mono PCM: telephone quality) of a
// quiet 400 Hz tone, made as they are read, so a recording of any size costs one 64 KB block
// of memory. The provider's are MP3s; a WAV is as playable and can be made without an encoder.

/** Bytes a second of recording takes: 8000 samples of one byte. */
export const RECORDING_BYTES_PER_SECOND = 8000;
/** The WAV header's size: a recording is at least this. */
export const WAV_HEADER_BYTES = 44;
/** The largest recording the sandbox makes (a WAV's sizes are 32-bit). */
export const MAX_RECORDING_BYTES = 2 ** 31;

// 400 Hz at 8 kHz is 20 samples a period: a block of whole periods repeats seamlessly.
const PERIOD = 20;
const BLOCK = new Uint8Array(PERIOD * 3276);
for (let i = 0; i < BLOCK.length; i++) {
  BLOCK[i] = 128 + Math.round(24 * Math.sin((2 * Math.PI * (i % PERIOD)) / PERIOD));
}

/** The size of the recording of a call `seconds` long (one second at least). */
export function recordingBytesFor(seconds: number): number {
  return WAV_HEADER_BYTES + Math.max(1, seconds) * RECORDING_BYTES_PER_SECOND;
}

/** A recording `size` bytes long in total (header included), chunk by chunk. */
export function* recordingChunks(size: number): Generator<Uint8Array, void, undefined> {
  yield wavHeader(size - WAV_HEADER_BYTES);
  let left = size - WAV_HEADER_BYTES;
  while (left > 0) {
    const chunk = left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
    left -= chunk.length;
    yield chunk;
  }
}

function wavHeader(dataBytes: number): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // the fmt chunk's size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, RECORDING_BYTES_PER_SECOND, true); // samples a second
  view.setUint32(28, RECORDING_BYTES_PER_SECOND, true); // bytes a second
  view.setUint16(32, 1, true); // bytes a sample frame
  view.setUint16(34, 8, true); // bits a sample
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  return header;
}
