SET NOCOUNT ON;
DECLARE @granted int;
EXEC @granted = sys.sp_getapplock @Resource = @0, @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = 10000;
SELECT @granted AS granted;
