import { sessionUsersInWords } from './sessions.service';

/** What a refused delete names (409): every website, scenario and schedule that names the session. */
describe('sessionUsersInWords', () => {
  it('one website, as before scenarios and schedules had a session_id', () => {
    expect(sessionUsersInWords({ websites: [{ id: 7, name: 'Shop account' }], scenarios: [], schedules: [] })).toBe("the website 'Shop account' (7)");
  });

  it('several of a kind are plural; kinds are listed in order, the last after “and”', () => {
    expect(
      sessionUsersInWords({
        websites: [
          { id: 1, name: 'A' },
          { id: 2, name: 'B' },
        ],
        scenarios: [{ id: 3, name: 'Checkout' }],
        schedules: [{ id: 4, name: 'Nightly' }],
      }),
    ).toBe("the websites 'A' (1), 'B' (2), the scenario 'Checkout' (3) and the schedule 'Nightly' (4)");
  });

  it('a schedule alone', () => {
    expect(sessionUsersInWords({ websites: [], scenarios: [], schedules: [{ id: 4, name: 'Nightly' }] })).toBe("the schedule 'Nightly' (4)");
  });
});
