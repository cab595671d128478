// Small statistics and one uniform way to print a figure against its baseline.
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function timeEach(count, fn) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    times.push(performance.now() - started);
  }
  return times;
}

export function report(name, figure, baseline, unit = "ms") {
  const ratio = figure.value / baseline.value;
  const format = (value) => (unit === "ms" ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ${unit}`);
  console.log(`\n${name}`);
  console.log(`  cyrnel:   ${format(figure.value)}  (${figure.label})`);
  console.log(`  baseline: ${format(baseline.value)}  (${baseline.label})`);
  console.log(`  ratio:    ${ratio.toFixed(2)}×`);
  return { name, value: figure.value, baseline: baseline.value, ratio };
}
