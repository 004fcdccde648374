import { SetMetadata } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC, Public, routeFlag } from './decorators';

describe('routeFlag', () => {
  const reflector = new Reflector();
  const context = (controller: new () => object, handler: (...args: never[]) => unknown) => new ExecutionContextHost([], controller, handler);

  @Public()
  class OpenController {
    open(): void {}
    @SetMetadata(IS_PUBLIC, false)
    closed(): void {}
  }
  class PlainController {
    plain(): void {}
    @Public()
    open(): void {}
  }
  /** Inherits `plain` (the same function) but is public as a whole. */
  @Public()
  class OpenSubclass extends PlainController {}

  it('reads a mark on the handler or its controller; the handler’s own overrides the controller’s', () => {
    expect(routeFlag(reflector, context(OpenController, OpenController.prototype.open), IS_PUBLIC)).toBe(true);
    expect(routeFlag(reflector, context(OpenController, OpenController.prototype.closed), IS_PUBLIC)).toBe(false);
    expect(routeFlag(reflector, context(PlainController, PlainController.prototype.plain), IS_PUBLIC)).toBe(false);
    expect(routeFlag(reflector, context(PlainController, PlainController.prototype.open), IS_PUBLIC)).toBe(true);
    expect(routeFlag(reflector, context(PlainController, PlainController.prototype.plain), 'someOtherKey')).toBe(false);
  });

  it('keeps one answer per controller and handler: a handler inherited by another controller is read for that one', () => {
    expect(routeFlag(reflector, context(PlainController, PlainController.prototype.plain), IS_PUBLIC)).toBe(false);
    expect(routeFlag(reflector, context(OpenSubclass, OpenSubclass.prototype.plain), IS_PUBLIC)).toBe(true);
    // Read again, from what was kept: the same answers, and the reflector is not asked again.
    const asked = jest.spyOn(reflector, 'getAllAndOverride');
    expect(routeFlag(reflector, context(PlainController, PlainController.prototype.plain), IS_PUBLIC)).toBe(false);
    expect(routeFlag(reflector, context(OpenSubclass, OpenSubclass.prototype.plain), IS_PUBLIC)).toBe(true);
    expect(asked).not.toHaveBeenCalled();
  });
});
