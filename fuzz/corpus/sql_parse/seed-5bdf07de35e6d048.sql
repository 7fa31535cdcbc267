
 USE AdventureWorks;

 SELECT * FROM ProductsManaged;