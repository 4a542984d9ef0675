import { existingUserCommand } from '../users/existing-user-command';
import { SignInResets } from './sign-in-resets';

export const ResetSignInCommand = existingUserCommand(SignInResets, {
  className: 'ResetSignInCommand',
  name: 'reset-sign-in',
  description:
    "Reset a user's sign-in throttle (consent page): the attempts counted so far no longer count, on every instance",
  act: async (resets, name) => {
    await resets.reset(name);
    return 'sign-in throttle reset';
  },
});
