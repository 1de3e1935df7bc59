export const TEST_ADMIN_PASSWORD = 'Admin@123';
export const TEST_OPERATOR_PASSWORD = 'Oper@123';
