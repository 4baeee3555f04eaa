/** One benchmark figure, as `tea-edge bench --json` prints it (one JSON object per line). */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline_value?: number;
  ratio?: number;
}
