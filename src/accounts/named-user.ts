import { Injectable } from '@nestjs/common';
import type { User } from '../users/user.entity';
import { UnknownUserError, UsersService } from '../users/users.service';

/** How every account command finds its user: by the exact name, else "no user named …". */
@Injectable()
export class NamedUsers {
  constructor(private readonly users: UsersService) {}

  async find(name: string): Promise<User> {
    const found = await this.users.findByExactName(name);
    const user = found && (await this.users.findById(found.id));
    if (!user) throw new UnknownUserError(name);
    return user;
  }
}
