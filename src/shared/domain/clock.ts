/** Time as a port, so rate-limit windows and schedules can be tested at any instant. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
