import { ExecutionBudget, FINAL_SCREENSHOT_RESERVE_MS } from './execution-budget';

describe('ExecutionBudget', () => {
  const t0 = 1_000_000;

  it('the 120 s cap keeps 10 s for the final screenshot: steps get 110 s, the screenshot what is left of 120 s', () => {
    const budget = ExecutionBudget.start(120_000, t0);
    expect(budget.deadline).toBe(t0 + 120_000);
    expect(budget.reserveMs).toBe(FINAL_SCREENSHOT_RESERVE_MS);
    expect(budget.forSteps(t0)).toBe(110_000);
    expect(budget.forSteps(t0 + 100_000)).toBe(10_000);
    expect(budget.forFinalScreenshot(t0 + 100_000)).toBe(20_000);
    expect(budget.forFinalScreenshot(t0 + 111_000)).toBe(9_000);
  });

  it('a small cap keeps a quarter of itself for the final screenshot', () => {
    const budget = ExecutionBudget.start(2_000, t0);
    expect(budget.reserveMs).toBe(500);
    expect(budget.forSteps(t0)).toBe(1_500);
    expect(budget.forFinalScreenshot(t0 + 1_500)).toBe(500);
  });

  it('never hands out 0 ms (puppeteer reads 0 as "no limit"), also past the deadline', () => {
    const budget = ExecutionBudget.start(2_000, t0);
    expect(budget.forSteps(t0 + 1_500)).toBe(1);
    expect(budget.forSteps(t0 + 60_000)).toBe(1);
    expect(budget.forFinalScreenshot(t0 + 2_000)).toBe(1);
    expect(budget.forFinalScreenshot(t0 + 60_000)).toBe(1);
  });

  it('the steps and the final screenshot together never exceed the cap', () => {
    for (const cap of [1_000, 7_777, 40_000, 120_000, 3_600_000]) {
      const budget = ExecutionBudget.start(cap, t0);
      const stepsEnd = t0 + budget.forSteps(t0);
      expect(stepsEnd + budget.forFinalScreenshot(stepsEnd)).toBe(t0 + cap);
      expect(budget.reserveMs).toBeGreaterThan(0);
    }
  });

  it('refuses a cap that is not a positive number', () => {
    expect(() => ExecutionBudget.start(0, t0)).toThrow('must be positive');
    expect(() => ExecutionBudget.start(Number.NaN, t0)).toThrow('must be positive');
  });
});
