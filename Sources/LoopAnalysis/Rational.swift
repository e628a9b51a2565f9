public struct X {}
