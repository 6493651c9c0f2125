/** How this app names itself in the sessions it opens (`deviceInfo` of user.login, user.register, user.desktopSignIn). */
export const DEVICE_INFO = 'PennyPost desktop';
