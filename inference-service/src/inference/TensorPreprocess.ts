/** How pixels become model input; mirrors the PREPROCESS_* settings. */
export interface TensorPreprocess {
  mean: [number, number, number];
  std: [number, number, number];
  scale: number;
  channelOrder: 'RGB' | 'BGR';
}
